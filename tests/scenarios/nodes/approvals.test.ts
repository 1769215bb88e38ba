/**
 * A permission request raised by an agent on a node (permissionMode relay there) reaches the front's
 * desk like a local one: answered from the page (the HTTP API) and from a Telegram button (the real
 * grammY adapter against the fake Bot API), the answer carried back to the node as an option id.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { htmlToText } from '../../../src/channels/common/markdown/telegram.js';
import { tempDir, waitUntil } from '../../support/claude-rig.js';
import { type FakeTelegram, startFakeTelegram } from '../../support/fake-telegram.js';
import { type Cluster, conversationIn, useCluster } from '../../support/nodes-rig.js';

const OWNER = 111;
const GROUP = -100700;
let tg: FakeTelegram;
let cl: Cluster;

beforeAll(async () => {
  tg = await startFakeTelegram();
});

afterAll(async () => {
  await tg?.close();
});

useCluster(
  [{ name: 'alpha', projects: ['web'], agent: { permissionMode: 'relay' } }],
  (s) => void (cl = s.cl),
  () => ({
    front: {
      defaultProject: 'web',
      channels: { telegram: { token: tg.token, apiRoot: tg.apiRoot, owners: [OWNER], pollTimeoutSeconds: 1 } },
    },
  }),
);

describe('approvals on a node', { timeout: 180_000 }, () => {
  it('a request answered from the page reaches the agent on the node, and the tool runs once', async () => {
    const marker = path.join(tempDir('perm'), 'ran');
    const c = await conversationIn(cl.front, 'web');
    const w = cl.front.watch(c);
    await w.ready;
    const m = await cl.front.post(c, `[[bash:echo ran >> ${marker}]] tag:pa1`);
    const asked = await w.wait('permission', (d) => 'options' in d, cl.budget());
    const data = asked.data as { requestId: string; toolName: string; options: Array<{ id: string; kind?: string }> };
    expect(data.toolName).toBe('Bash');
    expect(fs.existsSync(marker)).toBe(false);
    const allow = data.options.find((o) => o.id === 'allow' || o.kind === 'allow')!;
    const r = await cl.front.api('POST', `/api/conversations/${c}/permissions/${data.requestId}`, {
      optionId: allow.id,
    });
    expect(r.status).toBe(200);
    const reply = await w.waitReply(m.messageId, 'reply', cl.budget());
    expect(reply.data.text).toBe('done ok');
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    await w.wait('permission', (d) => 'resolved' in d && d.requestId === data.requestId);
    // A second answer finds it settled.
    const again = await cl.front.api('POST', `/api/conversations/${c}/permissions/${data.requestId}`, {
      optionId: allow.id,
    });
    expect(again.status).toBe(404);
  });

  it('a request answered with a Telegram button reaches the agent on the node', async () => {
    const marker = path.join(tempDir('perm'), 'ran');
    tg.pushUpdate({
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: GROUP, type: 'supergroup', title: 'Team' },
        from: { id: OWNER, is_bot: false, first_name: 'Owner' },
        text: `@rudder_test_bot [[bash:echo ran >> ${marker}]] tag:pb1`,
        entities: [{ type: 'mention', offset: 0, length: 16 }],
      },
    });
    const prompt = () =>
      [...tg.messages.values()].find(
        (x) =>
          x.chatId === GROUP && x.reply_markup?.inline_keyboard?.flat().some((b) => b.callback_data?.startsWith('p:')),
      );
    await waitUntil(() => prompt() !== undefined, cl.budget());
    const p = prompt()!;
    expect(htmlToText(p.text)).toContain(`echo ran >> ${marker}`);
    const allow = p.reply_markup!.inline_keyboard!.flat().find((b) => b.text === 'Allow')!;
    const query = tg.press(OWNER, p.message_id, allow.callback_data!);
    const answered = await tg.waitFor((x) => x.method === 'answerCallbackQuery' && x.body.callback_query_id === query);
    expect(answered.body.text).toBe('Allow: sent to the agent.');
    const sent = () =>
      tg
        .callsOf('sendMessage')
        .filter((x) => Number(x.body.chat_id) === GROUP)
        .map((x) => String(x.body.text));
    await waitUntil(() => sent().some((t) => t.startsWith('done ok')), cl.budget());
    expect(fs.readFileSync(marker, 'utf8')).toBe('ran\n');
    expect(sent().filter((t) => t.startsWith('done ok'))).toHaveLength(1);
  });
});
