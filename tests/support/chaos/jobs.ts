/**
 * Work that starts without a person, among a chaos run's traffic: a schedule firing every few seconds into c1 (its
 * session kept), and webhook deliveries into c2, each signed as a generic sender signs, some sent again with the
 * same delivery id (a redelivery), and any the gateway did not acknowledge (it was down) sent again until it does.
 */
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Rng } from './random.js';
import type { ChaosRig } from './rig.js';

export const TICK = 'tick';
export const TICK_CRON = '*/5 * * * * *';
export const TICK_CONV = 'web:c1';
export const HOOK = 'ci';
export const HOOK_CONV = 'web:c2';
const HOOK_SECRET = 'chaos-hook-secret-0123456789';

/** The config's schedules and hooks of a chaos run. */
export const JOB_CONFIG = {
  schedules: {
    [TICK]: {
      cron: TICK_CRON,
      timezone: 'UTC',
      prompt: 'Scheduled check: answer in one line.',
      deliver: TICK_CONV,
      session: 'continue',
    },
  },
  hooks: { [HOOK]: { secret: HOOK_SECRET, prompt: 'CI event tag:{{tag}}', deliver: HOOK_CONV } },
};

export interface Delivery {
  id: string;
  tag: string;
  /** Each answer the gateway gave it (202: stored and run; 200: seen before, not run again). */
  answers: number[];
}

/** A generic sender's signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`. */
function signed(body: string): string {
  const t = Math.floor(Date.now() / 1000);
  const v1 = crypto.createHmac('sha256', HOOK_SECRET).update(`${t}.${body}`).digest('hex');
  return `t=${t},v1=${v1}`;
}

/** Sends webhook deliveries until stopped, on its own seeded generator so the faults' order is not moved. */
export class HookSender {
  readonly deliveries: Delivery[] = [];
  private running = false;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly rig: ChaosRig,
    seed: number,
    private readonly log: (line: string) => void,
    private readonly rnd = new Rng(seed * 7919 + 1),
  ) {}

  start(): void {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** The deliveries the gateway never acknowledged are sent again (as a sender retries) until it does or time is up. */
  async drain(timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (Date.now() < end && this.deliveries.some((d) => !acknowledged(d))) {
      for (const d of this.deliveries) if (!acknowledged(d)) await this.send(d);
      await sleep(500);
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      const old = this.deliveries.filter(acknowledged);
      if (old.length && this.rnd.next() < 0.35) {
        const d = old[this.rnd.int(0, old.length - 1)]!;
        this.log(`hook: redelivery of ${d.id}: ${await this.send(d)}`);
      } else {
        const n = this.deliveries.length + 1;
        const d: Delivery = { id: `dlv-${n}`, tag: `hd${n}`, answers: [] };
        this.deliveries.push(d);
        this.log(`hook: delivery ${d.id}: ${await this.send(d)}`);
      }
      for (const d of this.deliveries) if (!acknowledged(d) && this.rig.running()) await this.send(d);
      await sleep(this.rnd.int(800, 2500));
    }
  }

  private async send(d: Delivery): Promise<number | string> {
    const ep = this.rig.ep;
    if (!ep || !this.rig.running()) return 'the gateway is down';
    const body = JSON.stringify({ tag: d.tag, action: 'completed' });
    try {
      const res = await fetch(`${ep.base}/hooks/${HOOK}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-rudder-signature': signed(body), 'x-rudder-delivery': d.id },
        body,
      });
      await res.text();
      d.answers.push(res.status);
      return res.status;
    } catch (err) {
      return (err as Error).message;
    }
  }
}

const acknowledged = (d: Delivery) => d.answers.some((s) => s === 202 || s === 200);
