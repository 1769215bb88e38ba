/**
 * Turn progress in the chats: one gateway with the four chat channels, each through its real
 * library against the fake of its platform, and the scripted in-process agent (so a long turn
 * costs no model and no CLI). Default progress settings (card, minTurnSeconds 3, editEverySeconds 3).
 *  1. From the first tool's start (the gateway's `status: tool` event) to the first progress card
 *     the platform's fake received, per channel.
 *  2. A ten-minute turn with 100 tool calls on every channel at once: edits of its card per
 *     minute, against the cadence's bound (60 / editEverySeconds).
 */

import { startGateway } from '../../src/app/start.js';
import { LiveConfig, parseConfig } from '../../src/config/load.js';
import { createLogger } from '../../src/ops/logger.js';
import { tempDir, waitUntil } from '../../tests/support/claude-rig.js';
import type { ScriptStep } from '../../tests/support/fake-agent.js';
import { fakeSessionFactory } from '../../tests/support/fake-agent.js';
import { writeConfig } from '../../tests/support/gateway-rig.js';
import type { SectionBody } from '../report.js';
import { ms, summarize } from '../stats.js';
import { type Chat, startChats } from './chats.js';

const EDIT_EVERY_S = 3;

/** "[[tools:N:MS]]": N tool calls of MS each, a line of text before every tenth. */
function script(texts: string[]): ScriptStep[] {
  const m = /\[\[tools:(\d+):(\d+)\]\]/.exec(texts.join('\n'));
  const steps: ScriptStep[] = [];
  for (let i = 0; m && i < Number(m[1]); i++) {
    if (i % 10 === 0) steps.push({ waitMs: 100, event: { type: 'text', text: `Batch ${i / 10 + 1}: on with it.` } });
    steps.push({
      waitMs: 200,
      event: { type: 'tool-use', id: `tu${i}`, name: 'Bash', input: { command: `step ${i + 1}` } },
    });
    steps.push({
      waitMs: Number(m[2]),
      event: { type: 'tool-result', toolUseId: `tu${i}`, isError: false, excerpt: 'ok' },
    });
  }
  return steps;
}

/** The most calls in any window of `windowMs`. */
function peak(times: number[], windowMs: number): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= windowMs) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

export async function benchProgress(quick: boolean): Promise<SectionBody> {
  const home = tempDir('bench-progress');
  const cwd = tempDir('bench-progress-cwd');
  const chats = await startChats();
  const config = {
    web: { port: 0 },
    shutdownDrainSeconds: 0,
    agent: { cwd },
    progress: { editEverySeconds: EDIT_EVERY_S },
    channels: chats.config,
  };
  const gw = await startGateway({
    dataDir: home,
    config: new LiveConfig(writeConfig(cwd, config), parseConfig(config)),
    logger: createLogger({ dataDir: home, level: 'info', pretty: false }),
    sessionFactory: fakeSessionFactory({
      script,
      turnMs: 50,
      reply: (texts) => `done ${texts.at(-1)!.match(/tag:\w+/)?.[0] ?? ''}`.trim(),
    }),
    extraChannels: chats.extra,
  });
  try {
    const all = await chats.ready();
    const toolStarts = new Map<string, number[]>();
    gw.services.bus.subscribeAll((e) => {
      if (e.type === 'status' && e.data.state === 'tool')
        toolStarts.set(e.conversationId, [...(toolStarts.get(e.conversationId) ?? []), Date.now()]);
    });

    // 1. First visible progress: K short turns per channel, the channels side by side.
    const K = quick ? 3 : 10;
    const latency = new Map<string, number[]>();
    for (let k = 0; k < K; k++) {
      await Promise.all(
        all.map(async (c) => {
          const before = { cards: c.calls().cards.length, tools: toolStarts.get(c.conversationId)?.length ?? 0 };
          c.say(`run [[tools:1:1500]] tag:l${k}`);
          await waitUntil(() => c.replies(`done tag:l${k}`) > 0, 30_000);
          const card = c.calls().cards[before.cards];
          const started = toolStarts.get(c.conversationId)?.[before.tools];
          if (card && started !== undefined)
            latency.set(c.name, [...(latency.get(c.name) ?? []), card.postedAt - started]);
        }),
      );
    }

    // 2. The long turn, every channel at once.
    const tools = quick ? 10 : 100;
    const turnMs = quick ? 60_000 : 600_000;
    const each = Math.round(turnMs / tools) - 200;
    const firstLong = new Map(all.map((c) => [c.name, c.calls().cards.length]));
    const started = Date.now();
    await Promise.all(all.map((c) => c.say(`long [[tools:${tools}:${each}]] tag:long`)));
    await Promise.all(all.map((c) => waitUntil(() => c.replies('done tag:long') > 0, turnMs * 2)));
    const tookMs = Date.now() - started;
    // The collapse follows the reply within one interval.
    await new Promise((r) => setTimeout(r, EDIT_EVERY_S * 1000 + 500));
    const bound = 60 / EDIT_EVERY_S;
    const long = all.map((c: Chat) => {
      const card = c.calls().cards[firstLong.get(c.name)!]!;
      const times = [card.postedAt, ...card.edits];
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      const minutes = (times.at(-1)! - times[0]!) / 60_000;
      return {
        channel: c.name,
        edits: card.edits.length,
        perMinute: card.edits.length / minutes,
        peakPerMinute: peak(times, 60_000),
        minGapMs: Math.min(...gaps),
        cards: c.calls().cards.length - firstLong.get(c.name)!,
      };
    });

    const rows = all.map((c) => {
      const s = summarize(latency.get(c.name) ?? []);
      return [c.name, String(s.n), ms(s.p50), ms(s.max)];
    });
    const worstLatency = Math.max(...all.map((c) => summarize(latency.get(c.name) ?? []).max));
    const worstPeak = Math.max(...long.map((l) => l.peakPerMinute));
    return {
      tables: [
        {
          caption:
            `From the first tool's start to the first progress card at the platform's ` +
            `fake, ${K} turns per channel (the card is posted at the first tool, not after minTurnSeconds):`,
          head: ['channel', 'turns', 'p50', 'max'],
          rows,
        },
        {
          caption:
            `One turn of ${tools} tool calls over ${ms(tookMs)} on each channel at once, ` +
            `editEverySeconds ${EDIT_EVERY_S} (bound: ${bound} edits a minute):`,
          head: ['channel', 'cards', 'edits', 'edits/min (mean)', 'edits in the busiest minute', 'closest two calls'],
          rows: long.map((l) => [
            l.channel,
            String(l.cards),
            String(l.edits),
            l.perMinute.toFixed(1),
            String(l.peakPerMinute),
            ms(l.minGapMs),
          ]),
        },
      ],
      checks: [
        {
          target: 'first progress visible within 1 s of the first tool',
          measured: `worst ${ms(worstLatency)} across channels`,
          pass: worstLatency < 1000,
        },
        {
          target: `card edits at most ${bound} a minute (editEverySeconds ${EDIT_EVERY_S})`,
          measured:
            `busiest minute ${worstPeak} edits; closest two ` + `calls ${ms(Math.min(...long.map((l) => l.minGapMs)))}`,
          pass: worstPeak <= bound + 1,
        },
      ],
      notes: [
        'Run with the scripted in-process agent (tests/support/fake-agent.ts): each tool call is a tool-use ' +
          'event, a wait, and a tool-result event, with a line of text before every tenth; no CLI, no model.',
        'Each channel runs its real library (grammY, discord.js, @slack/bolt, Baileys) against the fake of ' +
          'its platform in tests/support; times are stamped by the fakes when a request arrives, so a ' +
          'request the client library held back a little arrives closer to the next one than the driver sent ' +
          'them (the driver issues calls of one card at least editEverySeconds apart). WhatsApp sends are ' +
          'recorded on the real socket (no wire protocol), so its times are the adapter’s own.',
        quick
          ? 'Quick run: the long turn is one minute with 10 tool calls instead of ten minutes with 100.'
          : 'The long turn runs in real time: ten minutes.',
      ],
      data: { latency: Object.fromEntries(latency), long, tookMs },
    };
  } finally {
    await gw.stop('benchmark over');
    await chats.close();
  }
}
