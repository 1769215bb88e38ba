#!/usr/bin/env node
// Runs an ACP agent (ACP_TAP_TARGET: its argv as JSON, this script's own arguments appended) between Rudder and
// the agent's stdio, unchanged, and writes the agent-side log to ACP_TAP_LOG: one JSON line per message Rudder
// sent ({dir:"in", method, id, sessionId}) and per answer the agent gave ({dir:"out", id, stopReason, outcome}).
// What Rudder wrote reaches the agent in the order it was written; the log is what the agent was asked.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import readline from 'node:readline';

const [bin, ...pre] = JSON.parse(process.env.ACP_TAP_TARGET ?? '[]');
const file = process.env.ACP_TAP_LOG;
const log = (entry) => file && fs.appendFileSync(file, `${JSON.stringify({ t: Date.now(), ...entry })}\n`);

const child = spawn(bin, [...pre, ...process.argv.slice(2)], { stdio: ['pipe', 'pipe', 'inherit'] });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
process.stdin.on('end', () => child.stdin.end());

function parse(line) {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = parse(line);
  if (m?.method) log({ dir: 'in', method: m.method, id: m.id, sessionId: m.params?.sessionId });
  else if (m && 'id' in m) log({ dir: 'in', answer: m.id });
  child.stdin.write(`${line}\n`);
});

readline.createInterface({ input: child.stdout }).on('line', (line) => {
  const m = parse(line);
  if (m && 'id' in m && !m.method)
    log({ dir: 'out', id: m.id, stopReason: m.result?.stopReason, outcome: m.result?.outcome, error: m.error?.code });
  else if (m?.method && m.method !== 'session/update') log({ dir: 'out', method: m.method, id: m.id });
  process.stdout.write(`${line}\n`);
});
