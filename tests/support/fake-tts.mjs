#!/usr/bin/env node
// A text-to-speech stand-in: reads the text on stdin and writes a known, playable audio file (a WAV of
// 0.4 s of a 440 Hz tone) whose INFO comment (ICMT) holds the text it was given, so a test can tell
// what was spoken. The last argument is the file to write.
// FAKE_TTS_MODE=fail exits 2; hang never finishes; none exits 0 without writing. FAKE_TTS_LOG appends a line a run.
import fs from 'node:fs';

const out = process.argv[process.argv.length - 1];
const mode = process.env.FAKE_TTS_MODE;
const chunks = [];
process.stdin.on('data', (c) => chunks.push(c));
process.stdin.on('end', () => {
  const text = Buffer.concat(chunks).toString('utf8');
  if (process.env.FAKE_TTS_LOG) fs.appendFileSync(process.env.FAKE_TTS_LOG, `${JSON.stringify(text)}\n`);
  if (mode === 'fail') {
    process.stderr.write('voice model not found\n');
    process.exit(2);
  }
  if (mode === 'hang') return void setInterval(() => {}, 1000);
  if (mode === 'none') return;
  fs.writeFileSync(out, wav(text));
});

function chunk(id, body) {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, body.length % 2 ? Buffer.alloc(1) : Buffer.alloc(0)]);
}

function wav(text) {
  const rate = 8000;
  const samples = Buffer.alloc(rate * 0.4 * 2);
  for (let i = 0; i < samples.length / 2; i++)
    samples.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const fmt = Buffer.alloc(16);
  fmt.writeUInt16LE(1, 0); // PCM
  fmt.writeUInt16LE(1, 2); // mono
  fmt.writeUInt32LE(rate, 4);
  fmt.writeUInt32LE(rate * 2, 8);
  fmt.writeUInt16LE(2, 12);
  fmt.writeUInt16LE(16, 14);
  const comment = chunk('ICMT', Buffer.from(`${text}\0`, 'utf8'));
  const info = chunk('LIST', Buffer.concat([Buffer.from('INFO', 'ascii'), comment]));
  const body = Buffer.concat([Buffer.from('WAVE', 'ascii'), chunk('fmt ', fmt), info, chunk('data', samples)]);
  return chunk('RIFF', body);
}
