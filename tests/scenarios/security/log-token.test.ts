/** The web token never reaches rudder.log of a running `rudder start`: not the startup address, not a logged URL. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { waitUntil } from '../../support/claude-rig.js';
import { startChild } from '../../support/gateway-rig.js';
import { rawRequest } from '../../support/raw-http.js';

describe('rudder start', () => {
  it('keeps the web token out of rudder.log: the startup address and every logged URL', async () => {
    const gw = await startChild({ agent: { claudeBin: '/bin/false' } });
    try {
      const t = encodeURIComponent(gw.ep.token);
      await rawRequest(gw.ep.base, {
        target: `/api/conversations/logged/events?token=${t}&lastEventId=0`,
        headersOnly: true,
      });
      await rawRequest(gw.ep.base, { target: `/api/status?token=${t}` });
      const file = path.join(gw.home, 'rudder.log');
      await waitUntil(() => (fs.readFileSync(file, 'utf8').match(/"msg":"web request"/g) ?? []).length >= 2, 10_000);
      const text = fs.readFileSync(file, 'utf8');
      expect(text).not.toContain(gw.ep.token);
      expect(text).not.toContain(t);
      expect(text).toContain('/api/conversations/logged/events?token=[redacted]&lastEventId=0');
      const started = text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
        .find((l) => l.msg === 'rudder started');
      expect(started.url).toBe(`${gw.ep.base}/`);
      // Its stdout is a pipe, not a terminal: the address is printed without the token.
      expect(gw.output()).toContain(`Open ${gw.ep.base}/ with its token`);
      expect(gw.output()).not.toContain(gw.ep.token);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      await gw.stop();
    }
  });
});
