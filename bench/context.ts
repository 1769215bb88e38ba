/** What every benchmark section is given: how long to run, and how fast the mock "model" is. */
import { tempDir } from '../tests/support/claude-rig.js';
import { agentConfig } from '../tests/support/gateway-rig.js';
import { type LatencyProfile, MODEL_LATENCY } from '../tests/support/mock-anthropic.js';

export interface BenchContext {
  quick: boolean;
  /** The mock's latency profile in every benchmark that involves the model (undefined: instant). */
  latency: LatencyProfile | undefined;
}

/** `--latency 1500,60` (first token ms, tokens per second), `--latency off`; default MODEL_LATENCY. */
export function latencyFromArgs(argv: string[]): LatencyProfile | undefined {
  const i = argv.indexOf('--latency');
  if (i < 0) return MODEL_LATENCY;
  const v = argv[i + 1] ?? '';
  if (v === 'off') return undefined;
  const m = /^(\d+),(\d+(?:\.\d+)?)$/.exec(v);
  if (!m || Number(m[2]) <= 0)
    throw new Error(`--latency takes "FIRST_TOKEN_MS,TOKENS_PER_SECOND" (e.g. 1500,60) or "off", not "${v}"`);
  return { firstTokenMs: Number(m[1]), tokensPerSecond: Number(m[2]) };
}

export function describeLatency(p: LatencyProfile | undefined): string {
  return p
    ? `first token ${p.firstTokenMs} ms after each request, then ${p.tokensPerSecond} tokens/s (a token is 4 ` +
        `characters of text or of a tool call's JSON input; side requests too)`
    : 'none: the mock answers at once';
}

/**
 * The agent settings of every benchmark gateway: the real CLI against the mock, its own HOME, and
 * an empty working directory, as the SDK floor gets (in a repository the CLI reads git and the
 * project's files for its context, which would be measured as the host's doing).
 */
export function benchAgent(mockUrl: string): Record<string, unknown> {
  return agentConfig(mockUrl, tempDir('bench-chome'), { cwd: tempDir('bench-cwd') });
}
