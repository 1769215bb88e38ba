/** The errors every channel raises the same way: a setting to fix, and a call while it is not started. */
import { RudderError } from '../../errors.js';

/** A channel setting that is missing, malformed or refused; `key` is under the channel's section ("token"). */
export function configError(channel: string, key: string, message: string): RudderError {
  return new RudderError('CHANNEL_CONFIG', message, { channel, key: `channels.${channel}.${key}` });
}

/**
 * The client while the channel runs; otherwise CHANNEL_SEND_FAILED, not permanent: a reply stays owed, and
 * goes out once the channel is back.
 */
export function whileRunning<T>(client: T | undefined, channel: string, why: string): T {
  if (client === undefined) throw new RudderError('CHANNEL_SEND_FAILED', why, { channel, permanent: false });
  return client;
}
