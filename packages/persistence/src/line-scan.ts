import { openStoredFile } from './stored-file.js';

const CHUNK_BYTES = 64 * 1024;

/**
 * Calls `visit` with each complete line of `file` from the start (without its newline) until it
 * returns true or `maxBytes` have been read. A last line without a newline is passed too.
 */
export async function scanLinesForward(file: string, maxBytes: number, visit: (line: Buffer) => boolean): Promise<void> {
  const handle = await openStoredFile(file);
  try {
    let carry = Buffer.alloc(0);
    let position = 0;
    while (position < maxBytes) {
      const chunk = Buffer.alloc(CHUNK_BYTES);
      const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      let data = Buffer.concat([carry, chunk.subarray(0, bytesRead)]);
      let newline = data.indexOf(10);
      while (newline !== -1) {
        if (visit(data.subarray(0, newline))) return;
        data = data.subarray(newline + 1);
        newline = data.indexOf(10);
      }
      carry = Buffer.from(data);
    }
    if (carry.length > 0 && position < maxBytes) visit(carry);
  } finally {
    await handle.close();
  }
}

/**
 * Calls `visit` with each line of `file` from the end backwards (without its newline) until it
 * returns true. Reads only as much of the file as the lines visited need.
 */
export async function scanLinesBackward(file: string, visit: (line: Buffer) => boolean): Promise<void> {
  const handle = await openStoredFile(file);
  try {
    let position = (await handle.stat()).size;
    let carry = Buffer.alloc(0);
    let first = true;
    while (position > 0) {
      const length = Math.min(CHUNK_BYTES, position);
      position -= length;
      const chunk = Buffer.alloc(length);
      await handle.read(chunk, 0, length, position);
      const data = Buffer.concat([chunk, carry]);
      let end = data.length;
      if (first && data[end - 1] === 10) end -= 1;
      first = false;
      let newline = data.lastIndexOf(10, end - 1);
      while (newline !== -1) {
        if (visit(data.subarray(newline + 1, end))) return;
        end = newline;
        newline = end === 0 ? -1 : data.lastIndexOf(10, end - 1);
      }
      carry = Buffer.from(data.subarray(0, end));
    }
    if (carry.length > 0) visit(carry);
  } finally {
    await handle.close();
  }
}
