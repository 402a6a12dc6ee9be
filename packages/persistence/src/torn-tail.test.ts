import { readFile, stat, truncate, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { CorruptFileError, UnsupportedSchemaError } from './errors.js';
import { encodeRecord } from './record-codec.js';
import { createSession, openSession } from './session-open.js';
import { loadTranscript } from './session-read.js';
import { sampleTranscript, useTemporaryHome } from './temporary-home.test-helpers.js';

const temporaryHome = useTemporaryHome();

async function sessionWithTranscript(): Promise<{ home: string; id: string; logFile: string; bytes: Buffer }> {
  const home = await temporaryHome();
  const writer = await createSession(home, { workspaceRoot: null, id: 'torn' });
  await writer.appendMessages(sampleTranscript());
  await writer.close();
  return { home, id: writer.id, logFile: writer.logFile, bytes: await readFile(writer.logFile) };
}

function lastLineStart(bytes: Buffer): number {
  return bytes.lastIndexOf(10, bytes.length - 2) + 1;
}

describe('a torn last record', () => {
  it('is ignored with a warning at every byte offset, and earlier messages survive', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const transcript = sampleTranscript();
    const start = lastLineStart(bytes);
    for (let length = start; length < bytes.length; length += 1) {
      await writeFile(logFile, bytes.subarray(0, length));
      const loaded = await loadTranscript(home, id);
      if (length === start) {
        expect(loaded.messages).toEqual(transcript.slice(0, -1));
        expect(loaded.warnings).toEqual([]);
      } else if (length === bytes.length - 1) {
        // Only the newline is missing: the record itself is complete.
        expect(loaded.messages).toEqual(transcript);
        expect(loaded.warnings).toEqual([]);
      } else {
        expect(loaded.messages).toEqual(transcript.slice(0, -1));
        expect(loaded.warnings).toHaveLength(1);
        expect(loaded.warnings[0]?.code).toBe('torn_tail');
        expect(loaded.warnings[0]?.message).toContain(`line 6 of ${logFile}`);
      }
    }
  });

  it('is cut off when the session is opened for writing, so the next append follows intact records', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const start = lastLineStart(bytes);
    for (const length of [start + 1, start + 40, bytes.length - 2, bytes.length - 1]) {
      await writeFile(logFile, bytes.subarray(0, length));
      const writer = await openSession(home, id);
      const kept = writer.messages.length;
      await writer.appendMessages([{ role: 'user', content: `after ${length}` }]);
      await writer.close();
      const loaded = await loadTranscript(home, id);
      expect(loaded.warnings).toEqual([]);
      expect(loaded.messages).toHaveLength(kept + 1);
      expect(loaded.messages.at(-1)).toEqual({ role: 'user', content: `after ${length}` });
    }
  });

  it('is kept in session.jsonl.torn (0600) when opening cuts it off, once however often opening is retried', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const start = lastLineStart(bytes);
    const tail = bytes.subarray(start, start + 40);
    await writeFile(logFile, Buffer.concat([bytes.subarray(0, start), tail]));
    // A process that kept the tail and stopped before cutting it off: the next open does not keep it twice.
    await writeFile(`${logFile}.torn`, Buffer.concat([tail, Buffer.from('\n')]), { mode: 0o600 });
    const writer = await openSession(home, id);
    expect(writer.openWarnings.map((warning) => warning.message)).toEqual([
      expect.stringContaining(`Its bytes were kept in ${logFile}.torn.`),
    ]);
    await writer.close();
    expect(await readFile(`${logFile}.torn`)).toEqual(Buffer.concat([tail, Buffer.from('\n')]));
    expect((await stat(`${logFile}.torn`)).mode & 0o777).toBe(0o600);
    expect(await readFile(logFile)).toEqual(bytes.subarray(0, start));

    const second = bytes.subarray(start, start + 25);
    await writeFile(logFile, Buffer.concat([bytes.subarray(0, start), second]));
    await (await openSession(home, id)).close();
    expect(await readFile(`${logFile}.torn`, 'utf8')).toBe(`${tail.toString()}\n${second.toString()}\n`);
  });
});

describe('a complete last record (it ends with a newline) that fails its checksum', () => {
  /*
   * Regression (issue 17, point 4): such a line was dropped as if a crash had cut it short, and
   * resume then recorded a completed run as failed. A crash cannot leave a newline after a partial
   * record, so this is damage: refused like damage in the middle, and the file is left alone.
   */
  it('is a CorruptFileError naming the file and the line, at every damaged byte', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const start = lastLineStart(bytes);
    for (let position = start; position < bytes.length - 1; position += 1) {
      const damaged = Buffer.from(bytes);
      damaged[position] = (damaged[position] as number) ^ 0x01;
      await writeFile(logFile, damaged);
      const error = await loadTranscript(home, id).catch((caught: unknown) => caught);
      expect(CorruptFileError.isInstance(error), `byte ${position}`).toBe(true);
      expect(error).toMatchObject({ file: logFile, line: 6 });
    }
  });

  it('is refused by opening for writing, which changes nothing and keeps no .torn file', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const damaged = Buffer.from(bytes);
    const position = lastLineStart(bytes) + 10;
    damaged[position] = (damaged[position] as number) ^ 0x01;
    await writeFile(logFile, damaged);
    const error = await openSession(home, id).catch((caught: unknown) => caught);
    expect(CorruptFileError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${logFile}, line 6: the checksum does not match the line; it is the last line, but it ends with a newline, so it was written whole and then damaged. ` +
        'Forge did not change the file; keep a copy before editing it by hand.',
    );
    expect(await readFile(logFile)).toEqual(damaged);
    await expect(stat(`${logFile}.torn`)).rejects.toThrow(/ENOENT/);
  });
});

describe('damage before the last record', () => {
  it('is a clear error naming the file and line, never a silent drop', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const lines = bytes.toString('utf8').split('\n');
    const damagedLine = lines[3] as string;
    lines[3] = damagedLine.replace('"role"', '"rolf"');
    await writeFile(logFile, lines.join('\n'));
    const error = await loadTranscript(home, id).catch((caught: unknown) => caught);
    expect(CorruptFileError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ file: logFile, line: 4 });
    expect((error as Error).message).toMatch(/session\.jsonl, line 4: the checksum does not match/);
    await expect(openSession(home, id)).rejects.toThrow(/line 4/);
    expect(await readFile(logFile, 'utf8')).toBe(lines.join('\n'));
  });

  it('catches a missing record in the middle through the numbering', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const lines = bytes.toString('utf8').split('\n');
    lines.splice(2, 1);
    await writeFile(logFile, lines.join('\n'));
    await expect(loadTranscript(home, id)).rejects.toThrow(/line 3: expected record number 2, found 3/);
  });

  it('refuses a record with a valid checksum but an impossible shape', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const forged = encodeRecord({
      v: 2,
      seq: 6,
      type: 'message',
      at: 'now',
      index: 9,
      message: { role: 'user', content: 'x' },
    });
    await writeFile(logFile, Buffer.concat([bytes, Buffer.from(forged)]));
    await expect(loadTranscript(home, id)).rejects.toThrow(/line 7: message number 9 where number 5 was expected/);
  });

  it('says a record from a newer Forge needs an upgrade', async () => {
    const { home, id, logFile, bytes } = await sessionWithTranscript();
    const newer = encodeRecord({ v: 3, seq: 6, type: 'message' } as never);
    await writeFile(logFile, Buffer.concat([bytes, Buffer.from(newer)]));
    await expect(loadTranscript(home, id)).rejects.toThrow(UnsupportedSchemaError);
    await expect(loadTranscript(home, id)).rejects.toThrow(/schema version 3.*Upgrade Forge/);
  });

  it('refuses a log whose header was lost', async () => {
    const { home, id, logFile } = await sessionWithTranscript();
    await truncate(logFile, 10);
    await expect(loadTranscript(home, id)).rejects.toThrow(/no complete session header/);
  });
});
