/**
 * Downloads a Slack private file. Its URL needs the bot token, so the token goes only to Slack's
 * file host or to the host of channels.slack.apiUrl (a proxy or a test server); any other URL is
 * refused before a request is made.
 */
import { type AttachmentTarget, downloadTo } from '../common/attachments.js';
import type { PendingFile } from './inbound.js';

const SLACK_FILES_ORIGIN = 'https://files.slack.com';

export function tokenMayGoTo(url: string, apiUrl: string): boolean {
  const origin = URL.canParse(url) ? new URL(url).origin : undefined;
  return origin === SLACK_FILES_ORIGIN || origin === new URL(apiUrl).origin;
}

export async function fetchSlackFile(
  f: PendingFile,
  target: AttachmentTarget,
  maxBytes: number,
  o: { apiUrl: string; botToken: string },
): Promise<{ path: string; size: number }> {
  if (!tokenMayGoTo(f.url, o.apiUrl)) {
    throw new Error(
      `its URL is not on ${SLACK_FILES_ORIGIN} or the channels.slack.apiUrl host, so it was not fetched with ` +
        `the bot token`,
    );
  }
  return downloadTo(target, f.url, { headers: { authorization: `Bearer ${o.botToken}` }, maxBytes });
}
