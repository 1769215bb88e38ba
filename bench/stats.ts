/** Small statistics and the machine facts every figure is reported next to. */
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface Summary {
  n: number;
  min: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of an unsorted sample. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function summarize(values: number[]): Summary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => percentile(sorted, p);
  return {
    n: values.length,
    min: sorted[0] ?? NaN,
    p50: at(50),
    p95: at(95),
    p99: at(99),
    max: sorted.at(-1) ?? NaN,
    mean: values.reduce((a, b) => a + b, 0) / (values.length || 1),
  };
}

/** Milliseconds, with the precision that matters at that size. */
export function ms(v: number): string {
  if (!Number.isFinite(v)) return 'n/a';
  if (v < 1) return `${(v * 1000).toFixed(0)} µs`;
  if (v < 10) return `${v.toFixed(2)} ms`;
  if (v < 1000) return `${v.toFixed(0)} ms`;
  return `${(v / 1000).toFixed(2)} s`;
}

export function mb(bytes: number | undefined): string {
  return bytes === undefined ? 'n/a' : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export interface Machine {
  cores: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  platform: string;
  claudeVersion: string;
}

export function machine(claudeBin: string): Machine {
  let claudeVersion = 'unknown';
  try {
    claudeVersion = execFileSync(claudeBin, ['--version'], { encoding: 'utf8', timeout: 15_000 }).trim();
  } catch {
    // Reported as unknown.
  }
  return {
    cores: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 1024 ** 3),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    claudeVersion,
  };
}

/** The 1, 5 and 15 minute load averages, rounded. */
export function load(): [number, number, number] {
  const [a, b, c] = os.loadavg();
  return [a!, b!, c!].map((v) => Math.round(v * 100) / 100) as [number, number, number];
}

export const sleep = (msDelay: number) => new Promise<void>((r) => setTimeout(r, msDelay));
