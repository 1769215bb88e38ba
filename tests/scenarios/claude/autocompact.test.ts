/**
 * agent.autocompact reaches the real CLI as `--autocompact`, and the pinned CLI compacts a long
 * session at that size. The mock reports each request's context as 190k tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oneShotArgs, streamArgs } from '../../../src/agents/claude/args.js';
import { tuiArgs } from '../../../src/agents/tmux/pane/args.js';
import { parseConfig } from '../../../src/config/load.js';
import { tempDir } from '../../support/claude-rig.js';
import { agentConfig, startInProcess } from '../../support/gateway-rig.js';
import { type MockApi, type MockRequest, startMockApi } from '../../support/mock-anthropic.js';

const CONTEXT = 190_000;
/** The CLI's compaction request: it asks the model for a summary of the conversation so far. */
const isCompaction = (r: MockRequest) => /create a detailed summary of the conversation/.test(r.lastText);

let mock: MockApi;
beforeAll(async () => {
  mock = await startMockApi({
    script: (r) =>
      r.side
        ? undefined
        : { kind: 'text', text: isCompaction(r) ? '<summary>talked</summary>' : `ok ${r.seq}`, inputTokens: CONTEXT },
  });
});
afterAll(async () => {
  await mock?.close();
});

describe('--autocompact', () => {
  it('is passed on every launch: auto by default, or the configured size', () => {
    const auto = parseConfig({}).agent.autocompact;
    expect(auto).toBe('auto');
    for (const args of [
      streamArgs({ permissionMode: 'relay', autocompact: auto }, undefined),
      oneShotArgs({ permissionMode: 'relay', autocompact: 200_000 }, 's'),
      tuiArgs({ permissionMode: 'relay', autocompact: auto }, {}),
    ]) {
      const i = args.indexOf('--autocompact');
      expect(i).toBeGreaterThan(-1);
      expect(['auto', '200000']).toContain(args[i + 1]);
    }
    expect(() => parseConfig({ agent: { autocompact: 50_000 } })).toThrow(
      /agent\.autocompact: must be "auto" or at least 100000 tokens/,
    );
    expect(() => parseConfig({ agent: { autocompact: 'never' } })).toThrow(/agent\.autocompact/);
  });

  async function conversation(autocompact: 'auto' | number | undefined, conv: string): Promise<MockRequest[]> {
    const gw = await startInProcess({
      agent: agentConfig(mock.url, tempDir('chome'), autocompact === undefined ? {} : { autocompact }),
    });
    const from = mock.requests.length;
    try {
      const w = gw.watch(conv);
      await w.ready;
      for (let i = 0; i < 3; i++) {
        const m = await gw.post(conv, `message ${i} tag:${conv}${i}`);
        await w.waitReply(m.messageId, undefined, 60_000);
      }
      return mock.requests.slice(from).filter((r) => !r.side);
    } finally {
      await gw.stop();
    }
  }

  it('agent.autocompact 100000: the session is compacted once its context passes that size', async () => {
    const requests = await conversation(100_000, 'ac1');
    expect(requests.some(isCompaction)).toBe(true);
    // After the summary, the next request carries a short history again.
    const last = requests[requests.length - 1]!;
    expect(last.lastText).toContain('message 2');
    expect(last.body.messages.length).toBeLessThan(6);
  });

  it('the default (auto, the model window; the same as no flag): not at 190k tokens on the default model', async () => {
    const requests = await conversation(undefined, 'ac2');
    expect(requests.some(isCompaction)).toBe(false);
    expect(requests[requests.length - 1]!.body.messages.length).toBe(6);
  });
});
