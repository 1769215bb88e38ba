/**
 * The floor, side by side in one run: Rudder (the in-process gateway, driven over its HTTP API and
 * event stream like the web page) against a hand-written Agent SDK streaming-input client on the
 * same CLI, mock and environment. Two figures, each from sending a message to its first visible
 * text (the first streamed text delta):
 *   - a warm turn: a conversation whose process is running and idle;
 *   - a cold conversation: a new one, whose process is started for it.
 * Samples alternate between the two hosts. Each is split by phase with the wire tap (spawn, stdin
 * write, the mock's request and first token, the CLI's first text on stdout), so what the host
 * adds is told apart from what the CLI and the model take.
 */
import { tempDir } from '../tests/support/claude-rig.js';
import { startInProcess } from '../tests/support/gateway-rig.js';
import { type MockApi, startMockApi } from '../tests/support/mock-anthropic.js';
import { type BenchContext, benchAgent } from './context.js';
import { cliByFlags } from './floor/cli-flags.js';
import { isResult, isTextDelta, SdkAgent } from './floor/sdk-agent.js';
import { type HttpTap, now, TEXT_DELTA, tapHttp, tapRudder, type WireTaps } from './floor/wire-tap.js';
import type { Check, SectionBody, Table } from './report.js';
import { ms, sleep, summarize } from './stats.js';
import { FLOOR_TARGET_MS } from './steering.js';
import { TimedEvents } from './web-client.js';

/** One message's way to its first text, as offsets (ms); absent phases are NaN. */
export interface Phases {
  total: number;
  /** Send to the gateway's HTTP server having the request: the transport in (the client's HTTP hop). Rudder only. */
  transportIn: number;
  /** The host has the message (the server's request, or the SDK's push) to the CLI's spawn (cold only). */
  toSpawn: number;
  /** The host has the message to its stdin write: the host's way in (the spawn call included, when cold). */
  hostIn: number;
  /** The stdin write to the mock's request: the CLI (its start-up, when cold). */
  toRequest: number;
  /** The request to the first token: the model's latency profile. */
  toFirstToken: number;
  /** The first token to the CLI's first text line on stdout. */
  toStdout: number;
  /** The CLI's stdout to the host showing it: the SSE frame written by the server, or the message the SDK yields. */
  hostOut: number;
  /** The SSE frame written to the client having it: the transport out. Rudder only. */
  transportOut: number;
}

/** Where the gateway's HTTP side is seen (Rudder only): its port and the conversation's event stream. */
export interface HttpSide {
  tap: HttpTap;
  port: number;
  conv: string;
}

export function phases(
  taps: WireTaps,
  mock: MockApi,
  label: string | undefined,
  tag: string,
  sentPerf: number,
  sentWall: number,
  visible: number,
  side?: HttpSide,
): Phases {
  const write = taps.write(label, tag);
  const req = mock.requests.find((r) => !r.side && r.lastUserText.includes(tag));
  const spawn = write?.tap.spawnAt;
  const out = write ? taps.chunk(write.tap, TEXT_DELTA, write.at) : undefined;
  // The mock's times are wall-clock ms: converted to the tap's clock through the send, which has both.
  const wall = (t: number | undefined) => (t === undefined ? NaN : t - sentWall + sentPerf);
  const w = write?.at ?? NaN;
  const arrived = side ? (side.tap.request(side.port, /\/messages$/, sentPerf) ?? NaN) : sentPerf;
  const framed =
    side && out !== undefined
      ? (side.tap.frame(side.port, new RegExp(`/conversations/${side.conv}/events`), /^event: text/m, out) ?? NaN)
      : visible;
  return {
    total: visible - sentPerf,
    transportIn: side ? arrived - sentPerf : NaN,
    toSpawn: spawn !== undefined && spawn >= arrived ? spawn - arrived : NaN,
    hostIn: w - arrived,
    toRequest: wall(req?.at) - w,
    toFirstToken: wall(req?.firstTokenAt) - wall(req?.at),
    toStdout: (out ?? NaN) - wall(req?.firstTokenAt),
    hostOut: framed - (out ?? NaN),
    transportOut: side ? visible - framed : NaN,
  };
}

const PHASE_ROWS: Array<[keyof Phases, string]> = [
  ['transportIn', "send → the gateway has the request (HTTP, the client's hop)"],
  ['toSpawn', 'host has it → CLI spawned (host)'],
  ['hostIn', "host has it → message on the CLI's stdin (host)"],
  ['toRequest', "stdin → the mock's request (CLI)"],
  ['toFirstToken', "request → first token (the model's latency)"],
  ['toStdout', "first token → first text on the CLI's stdout (CLI)"],
  ['hostOut', 'CLI stdout → shown: SSE frame written, or message yielded (host)'],
  ['transportOut', 'SSE frame written → the client has it (HTTP)'],
  ['total', 'send → first text visible'],
];

export function phaseTable(
  caption: string,
  a: { name: string; samples: Phases[] },
  b: { name: string; samples: Phases[] },
): Table {
  const p50 = (s: Phases[], k: keyof Phases) => summarize(s.map((x) => x[k]).filter(Number.isFinite)).p50;
  const cell = (s: Phases[], k: keyof Phases) => {
    const v = s.map((x) => x[k]).filter(Number.isFinite);
    if (!v.length) return '–';
    const sm = summarize(v);
    return `${ms(sm.p50)} / ${ms(sm.p95)}`;
  };
  return {
    caption,
    head: ['phase (p50 / p95)', a.name, b.name, 'difference (p50)'],
    rows: PHASE_ROWS.filter(([k]) => [...a.samples, ...b.samples].some((s) => Number.isFinite(s[k]))).map(
      ([k, label]) => {
        const d = p50(a.samples, k) - p50(b.samples, k);
        return [
          label,
          cell(a.samples, k),
          cell(b.samples, k),
          Number.isFinite(d) ? `${d >= 0 ? '+' : ''}${ms(d)}` : '–',
        ];
      },
    ),
  };
}

/** What the host itself adds: its way in and out (not the HTTP hops, not the CLI, not the model). */
export const hostPart = (p: Phases) => p.hostIn + p.hostOut;
/** The HTTP hops between the client and the gateway (Rudder only; 0 for the SDK, which is called in-process). */
export const transport = (p: Phases) =>
  (Number.isFinite(p.transportIn) ? p.transportIn : 0) + (Number.isFinite(p.transportOut) ? p.transportOut : 0);

/** Between samples: the CLI that just answered finishes its own work first. */
const PAUSE_MS = 500;

export async function benchFloor(ctx: BenchContext): Promise<SectionBody> {
  const warmRuns = ctx.quick ? 4 : 30;
  const coldRuns = ctx.quick ? 3 : 10;
  const mock = await startMockApi({ latency: ctx.latency });
  const taps = tapRudder();
  const httpTap = tapHttp();
  const gw = await startInProcess({ agent: benchAgent(mock.url), steering: { maxLive: 8 } });
  const port = gw.gw.web!.address().port;
  const sdkHome = tempDir('bench-sdk-home');
  const sdk = new SdkAgent({ mockUrl: mock.url, label: 'sdk-warm', taps, home: sdkHome });
  const watches: TimedEvents[] = [];
  const watch = async (conv: string) => {
    const w = new TimedEvents(gw.ep, conv);
    watches.push(w);
    await w.ready;
    return w;
  };
  let sideRequests = 0;
  let mainRequests = 0;
  const samples = {
    rudderWarm: [] as Phases[],
    sdkWarm: [] as Phases[],
    rudderCold: [] as Phases[],
    sdkCold: [] as Phases[],
  };

  const rudderTurn = async (w: TimedEvents, conv: string, tag: string): Promise<Phases> => {
    const sentWall = Date.now();
    const sent = now();
    const { messageId } = await gw.post(conv, `hello tag:${tag}`);
    const text = await w.next('text', messageId);
    await w.next('reply', messageId);
    return phases(taps, mock, `web:${conv}`, `tag:${tag}`, sent, sentWall, text.at, { tap: httpTap, port, conv });
  };
  const sdkTurn = async (
    agent: SdkAgent,
    label: string,
    tag: string,
    sentWall: number,
    sent: number,
  ): Promise<Phases> => {
    const text = await agent.next(isTextDelta, sent);
    await agent.next(isResult, sent);
    return phases(taps, mock, label, `tag:${tag}`, sent, sentWall, text.at);
  };

  try {
    // Warm both: one turn each starts the processes, which then stay idle between samples.
    const warmConv = 'floor-warm';
    const w = await watch(warmConv);
    await rudderTurn(w, warmConv, 'warmup-r');
    const t = now();
    sdk.push('hello tag:warmup-s');
    await sdk.next(isResult, t);
    // Alternating, the order flipped each round, with a pause so the other CLI's work after its
    // result (its transcript, its bookkeeping) is over before the next sample starts.
    const rudderWarm = async (i: number) => samples.rudderWarm.push(await rudderTurn(w, warmConv, `rw${i}`));
    const sdkWarm = async (i: number) => {
      const sentWall = Date.now();
      const sent = sdk.push(`hello tag:sw${i}`);
      samples.sdkWarm.push(await sdkTurn(sdk, 'sdk-warm', `sw${i}`, sentWall, sent));
    };
    for (let i = 0; i < warmRuns; i++) {
      for (const run of i % 2 ? [sdkWarm, rudderWarm] : [rudderWarm, sdkWarm]) {
        await run(i);
        await sleep(PAUSE_MS);
      }
    }
    process.stdout.write(
      `  warm: Rudder p50 ${ms(summarize(samples.rudderWarm.map((p) => p.total)).p50)}, SDK ` +
        `p50 ${ms(summarize(samples.sdkWarm.map((p) => p.total)).p50)}\n`,
    );

    const rudderCold = async (i: number) => {
      const conv = `floor-cold-${i}`;
      const cw = await watch(conv);
      samples.rudderCold.push(await rudderTurn(cw, conv, `rc${i}`));
      cw.close();
      await gw.gw.services.pool.release(`web:${conv}`, 'benchmark sample over');
    };
    const sdkCold = async (i: number) => {
      const sentWall = Date.now();
      const sent = now();
      const cold = new SdkAgent({ mockUrl: mock.url, label: `sdk-cold-${i}`, taps, home: sdkHome });
      cold.push(`hello tag:sc${i}`);
      samples.sdkCold.push(await sdkTurn(cold, `sdk-cold-${i}`, `sc${i}`, sentWall, sent));
      await cold.close();
    };
    for (let i = 0; i < coldRuns; i++) {
      for (const run of i % 2 ? [sdkCold, rudderCold] : [rudderCold, sdkCold]) {
        await run(i);
        await sleep(PAUSE_MS);
      }
    }
    process.stdout.write(
      `  cold: Rudder p50 ${ms(summarize(samples.rudderCold.map((p) => p.total)).p50)}, SDK ` +
        `p50 ${ms(summarize(samples.sdkCold.map((p) => p.total)).p50)}\n`,
    );
  } finally {
    sideRequests = mock.requests.filter((r) => r.side).length;
    mainRequests = mock.requests.length - sideRequests;
    for (const x of watches) x.close();
    await sdk.close();
    await gw.stop();
    await mock.close();
  }

  // The CLI alone, by launch: is a gap in the CLI's part the launch, and which part of it?
  const flags = await cliByFlags(ctx.quick ? 1 : 3, 6);
  const rudderLaunch = flags[0]!.summary.p50;
  const sdkLaunch = flags[1]!.summary.p50;

  const total = (s: Phases[]) => summarize(s.map((p) => p.total));
  const part = (s: Phases[], f: (p: Phases) => number) => summarize(s.map(f).filter(Number.isFinite)).p50;
  const check = (what: string, r: Phases[], f: Phases[], cold: boolean): Check => {
    const over = total(r).p50 - total(f).p50;
    const hostOver = part(r, hostPart) - part(f, hostPart);
    const cli = (p: Phases) => p.toRequest + p.toStdout;
    return {
      target: `floor: ${what} within ${FLOOR_TARGET_MS} ms of the Agent SDK`,
      measured:
        `${over >= 0 ? '+' : ''}${ms(over)} (Rudder p50 ${ms(total(r).p50)}, SDK ` +
        `p50 ${ms(total(f).p50)}); the hosts' own phases ${hostOver >= 0 ? '+' : ''}${ms(hostOver)}, the ` +
        `HTTP hops ${ms(part(r, transport))}`,
      pass: over <= FLOOR_TARGET_MS,
      why:
        `By phase (table above): the host's own part, its way in (the request → stdin${
          cold ? ', the ' + 'spawn included' : ''
        }) and out (the CLI's stdout → the SSE frame written), is ` +
        `p50 ${ms(part(r, hostPart))} for Rudder and ${ms(part(f, hostPart))} for the SDK; the HTTP hops ` +
        `between the client and the gateway, which the SDK called in-process does not have, ` +
        `take ${ms(part(r, transport))}; the CLI's part (stdin → request, first token → stdout) ` +
        `is ${ms(part(r, cli))} under Rudder and ${ms(part(f, cli))} under the SDK (the CLI alone, without ` +
        `any host, takes ${ms(rudderLaunch)} from stdin to its request with Rudder's launch ` +
        `and ${ms(sdkLaunch)} with the SDK's: last table); the model's first token is the same profile for ` +
        `both.${
          over > FLOOR_TARGET_MS
            ? ` The end-to-end difference ` +
              `is ${
                hostOver > FLOOR_TARGET_MS
                  ? "mostly Rudder's own " + 'phases'
                  : part(r, transport) > FLOOR_TARGET_MS
                    ? "mostly the HTTP hops of the benchmark's client, " +
                      "which runs on the gateway's event loop here (a browser is another process)"
                    : "mostly the CLI's " + 'part, which varies from run to run on a busy machine'
              }.`
            : ''
        }`,
    };
  };

  return {
    tables: [
      phaseTable(
        `A warm turn, ${warmRuns} samples each, alternating: send → first text visible (Rudder: POST to the ` +
          `first SSE text event at the client; the SDK: push into the prompt stream to the first text delta ` +
          `it yields):`,
        { name: 'Rudder', samples: samples.rudderWarm },
        { name: 'Agent SDK', samples: samples.sdkWarm },
      ),
      phaseTable(
        `A cold conversation (a new conversation, its process started for it), ${coldRuns} samples each, alternating:`,
        { name: 'Rudder', samples: samples.rudderCold },
        { name: 'Agent SDK', samples: samples.sdkCold },
      ),
      {
        caption:
          'The CLI alone, by how it is launched (a raw process, no host; a warm process, the mock answering ' +
          'at once): a user message on stdin → the request the mock receives:',
        head: ['launch', 'turns', 'p50', 'p95', 'min', "vs. Rudder's launch (p50)"],
        rows: flags.map((v) => [
          v.name,
          String(v.summary.n),
          ms(v.summary.p50),
          ms(v.summary.p95),
          ms(v.summary.min),
          `${v.summary.p50 - rudderLaunch >= 0 ? '+' : ''}${ms(v.summary.p50 - rudderLaunch)}`,
        ]),
      },
    ],
    checks: [
      check("a warm turn's first text", samples.rudderWarm, samples.sdkWarm, false),
      check("a cold conversation's first text", samples.rudderCold, samples.sdkCold, true),
    ],
    notes: [
      `The mock saw ${mainRequests} requests of the agents' turns and ${sideRequests} side requests ` +
        `(requests without tools, e.g. title generation; they get the same latency profile). With ` +
        `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC, as in every test and benchmark, the CLI makes few or none.`,
      'The HTTP client and its event stream run in the benchmark process, as the gateway does; a browser on ' +
        'the same machine would be another process.',
      'Rudder is measured as the web page uses it: the client POSTs and reads the event stream over HTTP; ' +
        'its server side is timed where the request arrives and where the SSE frame is written ' +
        '(bench/floor/wire-tap.ts), so the HTTP hops are told apart.',
      'The SDK client starts its CLI with its own flags (`--output-format stream-json --verbose ' +
        '--input-format stream-json --permission-mode=bypassPermissions --include-partial-messages`) and an ' +
        'initialize request; Rudder adds `--replay-user-messages`, `--autocompact auto` and a uuid on each ' +
        'message, which attribution needs.',
    ],
    data: { warmRuns, coldRuns, samples, flags },
  };
}
