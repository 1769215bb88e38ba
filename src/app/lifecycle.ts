/**
 * `rudder start`'s signals, handled from the first moment: until the gateway runs they only cut the
 * startup short (startGateway returns early and running() stops it); once it runs, the first one
 * stops it and the process exits.
 */
import type { Logger } from '../ops/logger.js';
import type { RunningGateway } from './start.js';

export class Lifecycle {
  readonly startup = new AbortController();
  private gw: RunningGateway | undefined;
  private log: Logger | undefined;
  private exiting = false;
  requested: string | undefined;

  install(): void {
    process.on('SIGTERM', () => this.request('SIGTERM'));
    process.on('SIGINT', () => this.request('SIGINT'));
    process.on('uncaughtException', (err) => {
      (this.log ?? console).error({ err }, 'uncaught exception: stopping');
      this.request('uncaughtException');
    });
    process.on('unhandledRejection', (err) => this.log?.error({ err }, 'unhandled rejection'));
  }

  running(gw: RunningGateway, log: Logger): void {
    this.gw = gw;
    this.log = log;
    if (this.requested) this.stop(this.requested);
  }

  logger(log: Logger): void {
    this.log = log;
  }

  request(signal: string): void {
    this.requested ??= signal;
    this.startup.abort();
    // Before the gateway runs, nothing needs stopping yet; startGateway returns early and running() stops it.
    if (this.gw) this.stop(signal);
    else if (!this.log) process.exit(signal === 'uncaughtException' ? 1 : 0);
  }

  private stop(signal: string): void {
    if (this.exiting || !this.gw) return;
    this.exiting = true;
    this.gw.stop(signal).then(
      () => process.exit(0),
      (err) => {
        this.log?.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  }
}
