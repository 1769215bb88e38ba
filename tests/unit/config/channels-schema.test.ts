/** The channels section of the config (config/channels-schema.ts): defaults, unknown keys, speech-to-text. */
import { describe, expect, it } from 'vitest';
import { channelsSchema, sttSchema } from '../../../src/config/channels-schema.js';

describe('channels config', () => {
  it('fills defaults and turns numeric ids into strings', () => {
    const c = channelsSchema.parse({ telegram: { token: '1:abc', owners: [12345] } });
    expect(c.telegram).toMatchObject({
      enabled: true,
      owners: ['12345'],
      allow: [],
      pairing: true,
      apiRoot: 'https://api.telegram.org',
      mode: 'polling',
      groups: { enabled: true, requireMention: true, allow: [] },
    });
    expect(c.discord).toBeUndefined();
  });

  it('rejects unknown keys anywhere, naming them', () => {
    const r = channelsSchema.safeParse({ slack: { botToken: 'xoxb-1', groups: { requireMentions: false } } });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toContain('requireMentions');
    expect(channelsSchema.safeParse({ matrix: {} }).success).toBe(false);
  });

  it('accepts a missing token, which the channel itself reports at start', () => {
    expect(channelsSchema.safeParse({ discord: {} }).success).toBe(true);
  });

  it('parses speech-to-text with a {file} placeholder by default', () => {
    expect(sttSchema.parse({ command: 'whisper-cli' })).toEqual({
      command: 'whisper-cli',
      args: ['{file}'],
      timeoutSeconds: 120,
    });
  });
});
