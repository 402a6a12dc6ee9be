import { recordCalibration } from './calibration-store.js';

/*
 * Child process of the calibration kill test: records one sample per write, forever, printing
 * `ack <n>` once the write returned. The parent kills it with SIGKILL at a random moment.
 */
const [home] = process.argv.slice(2);
if (home === undefined) throw new Error('usage: calibration-child <home>');
for (let index = 1; ; index += 1) {
  await recordCalibration(home, {
    model: 'deepseek:deepseek-chat',
    counter: 'deepseek-v3',
    samples: [{ estimated: index, reported: index + 1 }],
  });
  process.stdout.write(`ack ${index}\n`);
}
