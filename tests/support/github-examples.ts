/**
 * GitHub's own example payloads (@octokit/webhooks-examples), typed by @octokit/webhooks-types. Tests take them
 * as GitHub sends them; where the examples lack a case (no failed check suite, no comment on a PR, no review with
 * text), a test changes the one field that makes the case, and the result must still be of GitHub's type.
 */
import { createRequire } from 'node:module';
import type { WebhookDefinition } from '@octokit/webhooks-examples';
import type { WebhookEventMap, WebhookEventName } from '@octokit/webhooks-types';

const definitions = createRequire(import.meta.url)('@octokit/webhooks-examples') as WebhookDefinition[];

/** Every example of an event. */
export function examples<N extends WebhookEventName>(name: N): Array<WebhookEventMap[N]> {
  const def = definitions.find((d) => d.name === name);
  if (!def) throw new Error(`no examples of ${name}`);
  return def.examples as Array<WebhookEventMap[N]>;
}

/** The first example of an event that `pick` takes, copied so a test may change it. */
export function example<N extends WebhookEventName>(
  name: N,
  pick: (e: WebhookEventMap[N]) => boolean = () => true,
): WebhookEventMap[N] {
  const found = examples(name).find(pick);
  if (!found) throw new Error(`no example of ${name} matches`);
  return structuredClone(found);
}
