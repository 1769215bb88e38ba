/**
 * Stopping the gateway: in-flight turns and review actions drain for a bounded time, then every git
 * and agent process stops (the spare one too), owed deliveries get a moment, the channels and the
 * page's server stop, the last steps are written and the store closes.
 */
import type { Gateway, PageServer } from './gateway.js';

export interface Stoppable extends Gateway {
  page: PageServer | undefined;
  /** Releases the data dir's lock when the gateway took it. */
  release(): void;
}

export async function shutdown(g: Stoppable, reason: string): Promise<void> {
  const { services: s, launches, nodes, page, release } = g;
  const drainMs = s.config.current().shutdownDrainSeconds * 1000;
  s.log.info({ reason, drainSeconds: drainMs / 1000 }, 'stopping: draining in-flight turns');
  s.conversations.markShuttingDown();
  s.scheduler.stop(); // no slot fires into a gateway that is stopping
  s.channelStarts.stop();
  const end = Date.now() + drainMs;
  // A review action (a merge, a push) gets the same time to finish: a git killed mid-merge leaves a half merge.
  const busy = () => s.conversations.anyBusy() || s.treeActions.run.running() > 0;
  while (Date.now() < end && busy()) await new Promise((r) => setTimeout(r, 50));
  s.treeActions.stop(`gateway stopping (${reason})`);
  await Promise.all([s.pool.stopAll(`gateway stopping (${reason})`), launches.stop(`gateway stopping (${reason})`)]);
  await s.replies.delivery.idle(2000);
  s.replies.delivery.stop();
  s.voice.stop();
  s.cards.stop();
  await s.notifier.stop(2000);
  s.conversations.dispose();
  await Promise.allSettled([...s.chats.all().map((c) => c.stop()), page?.stop()]);
  await nodes?.stop();
  s.steps.flush();
  await s.store.close();
  s.log.info('stopped');
  release();
}
