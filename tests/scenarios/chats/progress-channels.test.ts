/**
 * Turn progress on every chat channel through the whole gateway, with the scripted in-process
 * agent (tests/support/fake-agent.ts) so a long turn costs nothing: each real chat library against
 * the fake of its platform. One card per turn on each, Stop on the card (owners only), text
 * between tools as messages when asked, reply drafts in Telegram private chats with the fallback
 * to edits, WhatsApp's numbered permission reply with the whole input, and its status fallback.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WhatsAppChannel } from '../../../src/channels/whatsapp/channel.js';
import { whatsappSchema } from '../../../src/config/channels-schema.js';
import { silentLogger } from '../../../src/ops/logger.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import type { FakeWireAnswer } from '../../support/fake-agent.js';
import { fakeSessionFactory, type ScriptStep } from '../../support/fake-agent.js';
import { botMention, type FakeDiscord, startFakeDiscord } from '../../support/fake-discord.js';
import { type FakeSlack, startFakeSlack } from '../../support/fake-slack.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { type FakeWhatsApp, startFakeWhatsApp } from '../../support/fake-whatsapp.js';
import { startInProcess } from '../../support/gateway-rig.js';

const EVERY_S = 0.5;
/**
 * Each fake stamps a call when it arrives; the interval counts from the previous answer, so only timer rounding is
 * left.
 */
const TOLERANCE_MS = 5;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * "[[tools:N:MS]]" runs N Bash calls of MS each; "[[talk]]" writes a line of text between them; "[[ask:TEXT]]" first
 * asks to run TEXT.
 */
function script(texts: string[]): ScriptStep[] {
  const t = texts.join('\n');
  const steps: ScriptStep[] = [];
  const ask = /\[\[ask:([^\]]+)\]\]/.exec(t);
  if (ask)
    steps.push({
      waitMs: 20,
      ask: {
        requestId: `req-${Date.now()}`,
        toolName: 'Bash',
        input: { command: ask[1]! },
        options: [
          { id: 'allow', label: 'Allow' },
          { id: 'deny', label: 'Deny' },
        ],
      },
    });
  const m = /\[\[tools:(\d+):(\d+)\]\]/.exec(t);
  for (let i = 0; m && i < Number(m[1]); i++) {
    if (t.includes('[[talk]]')) steps.push({ waitMs: 10, event: { type: 'text', text: `Now step ${i + 1}.` } });
    steps.push({
      waitMs: 20,
      event: { type: 'tool-use', id: `tu${i}`, name: 'Bash', input: { command: `step ${i + 1}` } },
    });
    steps.push({
      waitMs: Number(m[2]),
      event: { type: 'tool-result', toolUseId: `tu${i}`, isError: false, excerpt: 'fine' },
    });
  }
  if (t.includes('[[stream]]'))
    for (let i = 0; i < 30; i++) steps.push({ waitMs: 100, event: { type: 'text-delta', text: `word${i} ` } });
  return steps;
}

async function gateway(
  channels: Record<string, unknown>,
  opts: { extra?: WhatsAppChannel[]; progress?: Record<string, unknown>; decisions?: FakeWireAnswer[] } = {},
) {
  const gw = await startInProcess(
    { progress: { editEverySeconds: EVERY_S, minTurnSeconds: 0.3, ...opts.progress }, channels },
    {
      sessionFactory: fakeSessionFactory({
        script,
        turnMs: 50,
        reply: (texts) => `answer to ${texts.at(-1)!.match(/tag:\w+/)?.[0] ?? 'it'}`,
        onDecision: (_id, d) => opts.decisions?.push(d),
      }),
      extraChannels: opts.extra,
    },
  );
  cleanups.push(() => gw.stop());
  return gw;
}

/** Consecutive calls on one card are never closer than the interval. */
function expectCadence(times: number[]): void {
  for (let i = 1; i < times.length; i++)
    expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(EVERY_S * 1000 - TOLERANCE_MS);
}

describe('progress on Discord (discord.js, fake gateway)', () => {
  const GUILD = '500000000000000001';
  const CHAN = '600000000000000001';
  const owner = { id: '420000000000000001', username: 'ann', discriminator: '0', global_name: 'Ann', avatar: null };
  const other = { id: '420000000000000002', username: 'bob', global_name: 'Bob' };
  let dc: FakeDiscord;
  let n = 2000;
  const say = (text: string) =>
    dc.dispatch(
      'MESSAGE_CREATE',
      botMention(dc, { id: String(n++), channelId: CHAN, guildId: GUILD, author: owner, text }),
    );
  const cardOf = () => [...dc.messages.values()].find((m) => m.contents[0]!.startsWith('⏳ Working'));

  it(
    'posts one quiet card, edits it at the cadence, collapses it, then posts the reply; Stop works for the ' +
      'owner only',
    async () => {
      dc = await startFakeDiscord({ guilds: [{ id: GUILD, channels: [{ id: CHAN, name: 'general' }] }] });
      cleanups.push(() => dc.close());
      await gateway({ discord: { token: dc.token, restApi: dc.restApi, owners: [owner.id], allow: [other.id] } });
      await dc.ready();
      say('work [[tools:3:700]] tag:d1');
      await waitUntil(() => [...dc.messages.values()].some((m) => m.content === 'answer to tag:d1'), 20_000);
      await waitUntil(() => cardOf()?.content.startsWith('✓') ?? false, 10_000);
      const card = cardOf()!;
      expect([...dc.messages.values()].filter((m) => m.contents[0]!.startsWith('⏳ Working'))).toHaveLength(1);
      expect(card.flags).toBe(4096);
      expect(card.content).toBe(card.content.split('\n')[0]);
      expect(card.content).toMatch(/^✓ 3 steps · \ds$/);
      expect(card.components).toEqual([]);
      for (const s of ['step 1', 'step 2', 'step 3'])
        expect(card.contents.some((c) => c.includes(`\`${s}\``))).toBe(true);
      const calls = dc.calls.filter(
        (c) =>
          (c.method === 'POST' && c.body?.flags === 4096) ||
          (c.method === 'PATCH' && c.path.endsWith(`/messages/${card.id}`)),
      );
      // The collapse (the last call) goes at once, out of the rhythm.
      expectCadence(calls.slice(0, -1).map((c) => c.at));
      const reply = [...dc.messages.values()].find((m) => m.content === 'answer to tag:d1')!;
      expect(BigInt(reply.id)).toBeGreaterThan(BigInt(card.id));

      // A long turn: Stop from someone else is refused, from the owner it stops the turn.
      say('long [[tools:1:30000]] tag:d2');
      await waitUntil(
        () => [...dc.messages.values()].filter((m) => m.contents[0]!.startsWith('⏳ Working')).length === 2,
        10_000,
      );
      const live = [...dc.messages.values()].filter((m) => m.contents[0]!.startsWith('⏳ Working'))[1]!;
      await waitUntil(() => dc.messages.get(live.id)!.components.length > 0);
      const stop = dc.messages.get(live.id)!.components[0].components[0].custom_id as string;
      const refused = dc.press(other, live.id, stop, GUILD);
      const r1 = await dc.waitFor((c) => c.path.startsWith(`/interactions/${refused}/`));
      expect(r1.body.data).toMatchObject({ content: 'Only the owner can answer this.', flags: 64 });
      const pressed = dc.press(owner, live.id, stop, GUILD);
      const r2 = await dc.waitFor((c) => c.path.startsWith(`/interactions/${pressed}/`));
      expect(r2.body.data.content).toBe('⏹ Stopping the turn.');
      await waitUntil(
        () => [...dc.messages.values()].some((m) => m.content.startsWith('⏹ Stopped the running turn (“long')),
        10_000,
      );
      await waitUntil(() => dc.messages.get(live.id)!.content.startsWith('⏹ stopped after 1 step'), 10_000);
      expect([...dc.messages.values()].some((m) => m.content === 'answer to tag:d2')).toBe(false);
    },
  );
});

describe('progress on Slack (bolt, Socket Mode)', () => {
  const ANN = 'U0ANN';
  it('posts the card, updates it at the cadence with the text between tools, and collapses it', async () => {
    const sl: FakeSlack = await startFakeSlack();
    cleanups.push(() => sl.close());
    await gateway({ slack: { botToken: sl.botToken, appToken: sl.appToken, apiUrl: sl.apiUrl, owners: [ANN] } });
    await sl.connected();
    sl.sendEvent({
      type: 'message',
      channel: 'D0ANN',
      channel_type: 'im',
      user: ANN,
      text: 'go [[tools:3:700]] [[talk]] tag:s1',
      ts: '1700000300.000100',
    });
    await waitUntil(() => sl.callsOf('chat.postMessage').some((c) => c.args.text === 'answer to tag:s1'), 20_000);
    const card = () => [...sl.messages.values()].find((m) => m.texts[0]!.startsWith('⏳ Working'));
    await waitUntil(() => card()?.text.startsWith('✓') ?? false, 10_000);
    expect(card()!.text).toMatch(/^✓ 6 steps · \ds$/);
    expect(card()!.texts.some((t) => t.includes('Now step 2.'))).toBe(true);
    const calls = sl.calls.filter(
      (c) =>
        (c.method === 'chat.postMessage' && String(c.args.text).startsWith('⏳')) ||
        (c.method === 'chat.update' && c.args.ts === card()!.ts),
    );
    // The collapse (the last call) goes at once, out of the rhythm.
    expectCadence(calls.slice(0, -1).map((c) => c.at));
  });
});

describe('progress on WhatsApp (Baileys socket, sends recorded)', () => {
  const ME = { id: '4915550000001:3@s.whatsapp.net', lid: '987654321:3@lid', name: 'Rudder' };
  const ANN = '4915551112222@s.whatsapp.net';
  let n = 0;

  async function paired(progress?: Record<string, unknown>, decisions?: FakeWireAnswer[]) {
    const fake: FakeWhatsApp = await startFakeWhatsApp();
    cleanups.push(() => fake.close());
    const dataDir = tempDir('wa');
    const wa = new WhatsAppChannel({
      config: whatsappSchema.parse({ printQr: false, webSocketUrl: fake.webSocketUrl, owners: ['4915551112222'] }),
      dataDir,
      logger: silentLogger(),
      socketFactory: (c) => fake.factory(c),
    });
    // Access is read from the config; the channel itself comes in built on the fake socket.
    await gateway({ whatsapp: { enabled: false, owners: ['4915551112222'] } }, { extra: [wa], progress, decisions });
    const sock = fake.socket();
    // Let the fresh socket's start-up tick pass first (Baileys buffers events if it sees an identity then).
    await new Promise((r) => setImmediate(r));
    sock.ev.emit('creds.update', { me: ME });
    sock.ev.emit('connection.update', { connection: 'open' });
    await waitUntil(() => wa.status().state === 'connected');
    const say = (text: string) =>
      sock.ev.emit('messages.upsert', {
        type: 'notify',
        messages: [
          {
            key: { remoteJid: ANN, id: `W${n++}`, fromMe: false },
            pushName: 'Ann',
            messageTimestamp: Math.floor(Date.now() / 1000),
            message: { conversation: text },
          },
        ],
      });
    return { fake, say };
  }
  const texts = (fake: FakeWhatsApp) => fake.sent.filter((s) => typeof s.content.text === 'string');

  it(
    'edits the card with Baileys and relays a permission request as a numbered reply with the whole ' + 'input',
    async () => {
      const decisions: FakeWireAnswer[] = [];
      const { fake, say } = await paired(undefined, decisions);
      const long = `deploy ${'--flag '.repeat(900)}--end`;
      say(`ship it [[ask:${long}]] [[tools:2:700]] tag:w1`);
      await waitUntil(() => texts(fake).some((s) => s.content.text.includes('Reply with the option number')), 10_000);
      const request = texts(fake)
        .filter((s) => !s.content.edit && !s.content.text.startsWith('⏳'))
        .map((s) => s.content.text)
        .join('');
      // The parts close and reopen the code block where they split; the input is all there, in order.
      expect(request.replace(/[\s`]+/g, '').includes(long.replace(/\s+/g, ''))).toBe(true);
      say('1');
      await waitUntil(() => texts(fake).some((s) => s.content.text === 'answer to tag:w1'), 20_000);
      expect(decisions).toEqual([{ allow: true }]);
      const post = texts(fake).find((s) => s.content.text.startsWith('⏳ Working') && !s.content.edit)!;
      await waitUntil(() => texts(fake).some((s) => s.content.edit && s.content.text.startsWith('✓')), 10_000);
      const edits = texts(fake).filter((s) => s.content.edit);
      expect(edits.length).toBeGreaterThanOrEqual(2);
      expect(edits.every((e) => e.content.edit.id === 'SENT' + (fake.sent.indexOf(post) + 1))).toBe(true);
    },
  );

  it('falls back to one short status message when edits are refused, and still delivers the reply', async () => {
    const { fake, say } = await paired();
    fake.failWhen((c) => c.edit !== undefined);
    say('work [[tools:4:600]] tag:w2');
    await waitUntil(() => texts(fake).some((s) => s.content.text === 'answer to tag:w2'), 20_000);
    await new Promise((r) => setTimeout(r, EVERY_S * 3000));
    // One card, no edit shown, no second status within the minute, the reply once.
    expect(texts(fake).filter((s) => s.content.text.startsWith('⏳ Working'))).toHaveLength(1);
    expect(texts(fake).filter((s) => s.content.text === 'answer to tag:w2')).toHaveLength(1);
  });
});

describe('progress on Telegram: drafts and text between tools', () => {
  const OWNER = 111;
  let id = 1;
  const say = (tg: FakeTelegram, text: string) =>
    tg.pushUpdate({
      message: {
        message_id: id++,
        date: Math.floor(Date.now() / 1000),
        chat: { id: OWNER, type: 'private', first_name: 'P' },
        from: { id: OWNER, is_bot: false, first_name: 'P' },
        text,
      },
    });
  async function telegram(progress?: Record<string, unknown>) {
    const tg = await startFakeTelegram();
    cleanups.push(() => tg.close());
    await gateway(
      { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
      { progress },
    );
    return tg;
  }
  const sent = (tg: FakeTelegram) => tg.callsOf('sendMessage').map((c) => String(c.body.text));

  it(
    'sends the text written between tools as messages of their own, in order, before the one final ' + 'reply',
    async () => {
      const tg = await telegram({ text: 'messages' });
      say(tg, 'go [[tools:2:300]] [[talk]] tag:t1');
      await waitUntil(() => sent(tg).includes('answer to tag:t1'), 20_000);
      const order = sent(tg).filter((t) => /^Now step|^answer to/.test(t));
      expect(order).toEqual(['Now step 1.', 'Now step 2.', 'answer to tag:t1']);
    },
  );

  it('streams the reply as a draft in a private chat, and puts it in the card when drafts fail', async () => {
    const tg = await telegram();
    say(tg, 'write [[tools:1:200]] [[stream]] tag:t2');
    await waitUntil(() => sent(tg).includes('answer to tag:t2'), 20_000);
    const drafts = tg.callsOf('sendMessageDraft');
    expect(drafts.length).toBeGreaterThanOrEqual(2);
    expect(new Set(drafts.map((d) => d.body.draft_id)).size).toBe(1);
    expect(String(drafts.at(-1)!.body.text).length).toBeGreaterThan(String(drafts[0]!.body.text).length);
    expectCadence(drafts.map((d) => d.at));

    tg.script('sendMessageDraft', () => ({
      status: 400,
      body: { ok: false, error_code: 400, description: 'Bad Request: method is not available' },
    }));
    const before = tg.callsOf('sendMessageDraft').length;
    say(tg, 'again [[tools:1:200]] [[stream]] tag:t3');
    await waitUntil(() => sent(tg).includes('answer to tag:t3'), 20_000);
    expect(tg.callsOf('sendMessageDraft').length).toBe(before + 1);
    expect(
      tg
        .callsOf('editMessageText')
        .some((c) => String(c.body.text).includes('✍️') && String(c.body.text).includes('word')),
    ).toBe(true);
  });

  it('shows no card with progress.mode "off"', async () => {
    const tg = await telegram({ mode: 'off' });
    say(tg, 'go [[tools:2:400]] tag:t4');
    await waitUntil(() => sent(tg).includes('answer to tag:t4'), 20_000);
    expect(sent(tg).filter((t) => t.startsWith('⏳'))).toHaveLength(0);
    expect(tg.callsOf('editMessageText')).toHaveLength(0);
  });
});
