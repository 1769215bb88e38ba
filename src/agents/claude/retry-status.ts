/**
 * The CLI's retries of a failed model request as one status line that updates, with the cause:
 * "retrying 3/10 in 4 s: cannot reach api.anthropic.com (ENOTFOUND): the name does not resolve".
 * An api_retry frame carries the HTTP status when the API answered; for a connection failure it
 * says only `error: "unknown"`, so the cause is looked up once per turn (reach.ts) and reused.
 */
import { type ApiFailure, credentialNames, explainApiFailure, type FailureReport } from './api-failure.js';
import { type ApiEndpoint, apiEndpoint } from './endpoint.js';
import type { SystemOtherFrame } from './protocol/output.js';
import { reachCode } from './reach.js';

/** The key of the retry status: each one replaces the last (TurnEvent status `key`). */
export const RETRY_STATUS_KEY = 'api-retry';

export class RetryStatus {
  readonly endpoint: ApiEndpoint;
  private readonly credentials: string[];
  /** The connection failure's cause, looked up at the first retry that needs it. */
  private network: Promise<ApiFailure> | undefined;

  constructor(
    env: Record<string, string | undefined>,
    private readonly probe: (ep: ApiEndpoint) => Promise<string | undefined> = reachCode,
  ) {
    this.endpoint = apiEndpoint(env);
    this.credentials = credentialNames(env);
  }

  explain(report: FailureReport): ApiFailure {
    return explainApiFailure(report, this.endpoint, this.credentials);
  }

  /** The cause of one retry: at once when the API answered with a status, else from a look at the network. */
  cause(frame: SystemOtherFrame): ApiFailure | Promise<ApiFailure> {
    const status = typeof frame.error_status === 'number' ? frame.error_status : undefined;
    if (status !== undefined) return this.explain({ status, error: String(frame.error ?? '') });
    this.network ??= this.probe(this.endpoint).then(
      (code) =>
        code
          ? this.explain({ text: `(${code})` })
          : {
              cause: 'other',
              summary:
                `the connection to ${this.endpoint.url.host} opens but the request fails ` +
                '(TLS, or the server or a proxy closes it)',
              fix: 'Run `rudder doctor`: it sends one request with the agent environment and names the cause.',
            },
      () => this.explain({ error: 'unknown' }),
    );
    return this.network;
  }

  /** The status line for one api_retry frame. */
  static line(frame: SystemOtherFrame, failure: ApiFailure): string {
    const attempt = frame.attempt ?? '?';
    const max = frame.max_retries ?? '?';
    const delay =
      typeof frame.retry_delay_ms === 'number' ? ` in ${Math.max(1, Math.round(frame.retry_delay_ms / 1000))} s` : '';
    return `retrying ${attempt}/${max}${delay}: ${failure.summary}`;
  }
}
