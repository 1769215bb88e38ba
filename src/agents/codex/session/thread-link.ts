/**
 * A conversation's thread on an app-server: the lease on the (shared) server, the thread started
 * or resumed there with the conversation's cwd, policy and instructions, and the inputs the thread
 * already holds (from the client ids codex keeps on each userMessage item).
 */
import { RudderError } from '../../../errors.js';
import type { Logger } from '../../../ops/logger.js';
import { WRAPPER_SYSTEM_PROMPT } from '../../../security/wrap.js';
import { configArgs } from '../config-args.js';
import type { CodexLaunch } from '../launch.js';
import { codexPolicy } from '../permission-mode.js';
import type { v2 } from '../protocol/index.js';
import type { AppServer, ThreadHandler } from '../server/app-server.js';
import { CodexRpcError } from '../server/rpc.js';
import type { CodexServers, Lease } from '../server/servers.js';
import { decodeClientId } from './client-id.js';

/** Codex's answers for a thread id it has no rollout for (0.171 wording). */
const MISSING_THREAD = /no rollout found|invalid session id|thread not found/i;

export function isMissingThread(err: unknown): boolean {
  return err instanceof CodexRpcError && MISSING_THREAD.test(err.message);
}

/** Codex's answer while another app-server has the thread loaded (0.171 wording). */
const OTHER_WRITER = /already has an active writer/i;

/**
 * How long a resume waits for another Codex to let go of the thread: the app-server Codex's TUI leaves running
 * unloads an idle thread about a minute after the TUI closed it (measured on 0.171).
 */
const OTHER_WRITER_WAIT_MS = 150_000;
const OTHER_WRITER_POLL_MS = 2_000;

export interface ThreadLinkOptions {
  launch: CodexLaunch;
  servers: CodexServers;
  handler: ThreadHandler;
  log: Logger;
  /** The thread id is known (started or resumed): persist it. */
  onThreadId(threadId: string): void;
}

export class ThreadLink {
  threadId: string | undefined;
  /** Input ids the thread holds: taken in during this session, or found in its history at resume. */
  readonly held = new Set<string>();
  private lease: Lease | undefined;
  private opening: Promise<AppServer> | undefined;
  private unhost: (() => void) | undefined;

  constructor(private readonly o: ThreadLinkOptions) {
    this.threadId = o.launch.sessionId;
  }

  /** The live server the thread is (being) loaded on. */
  server(): AppServer | undefined {
    const s = this.lease?.server;
    return s?.alive() ? s : undefined;
  }

  /** The server with the thread loaded: leased, handshaken, started or resumed as needed. */
  open(): Promise<AppServer> {
    if (this.opening && this.server()) return this.opening;
    const launch = this.o.launch;
    if (!this.server()) {
      void this.lease?.release('its app-server is gone');
      const bin = typeof launch.bin === 'function' ? launch.bin() : launch.bin;
      this.lease = this.o.servers.lease(
        { bin, configArgs: configArgs(launch.config), env: launch.env },
        launch.conversationId,
      );
    }
    const server = this.lease!.server;
    const opening = (async () => {
      await server.ready;
      const threadId = await this.load(server);
      this.unhost?.();
      this.unhost = server.host(threadId, this.o.handler);
      return server;
    })();
    this.opening = opening;
    opening.catch(() => {
      if (this.opening === opening) this.opening = undefined;
    });
    return opening;
  }

  /** The thread was unloaded or the server died: the next open() loads it again. */
  dropped(): void {
    this.opening = undefined;
    this.unhost?.();
    this.unhost = undefined;
  }

  /** Stops hosting the thread and ends this conversation's lease (the last one stops the server). */
  async close(reason: string): Promise<void> {
    const server = this.server();
    const threadId = this.threadId;
    this.dropped();
    if (server && threadId)
      await server.request('thread/unsubscribe', { threadId }, 5_000).catch((err: Error) => {
        this.o.log.debug({ err: err.message }, 'thread/unsubscribe failed; the server is going anyway');
      });
    const lease = this.lease;
    this.lease = undefined;
    await lease?.release(reason);
  }

  private async load(server: AppServer): Promise<string> {
    const launch = this.o.launch;
    const policy = codexPolicy(launch.permissionMode);
    const developerInstructions = launch.appendSystemPrompt
      ? `${WRAPPER_SYSTEM_PROMPT}\n\n${launch.appendSystemPrompt}`
      : WRAPPER_SYSTEM_PROMPT;
    const common = {
      cwd: launch.cwd,
      approvalPolicy: policy.approvalPolicy,
      sandbox: policy.sandbox,
      approvalsReviewer: policy.approvalsReviewer,
      developerInstructions,
      ...(launch.model ? { model: launch.model } : {}),
    };
    let thread: v2.Thread;
    if (this.threadId) {
      try {
        thread = await this.resume(server, this.threadId, common);
      } catch (err) {
        if (!isMissingThread(err)) throw err;
        const lost = this.threadId;
        this.threadId = undefined;
        throw new RudderError('AGENT_SESSION_NOT_FOUND', (err as Error).message, {
          conversationId: launch.conversationId,
          sessionId: lost,
        });
      }
      this.noteHistory(thread);
      this.o.log.info({ threadId: thread.id, turns: thread.turns.length }, 'codex thread resumed');
    } else {
      thread = (await server.request('thread/start', common)).thread;
      this.o.log.info({ threadId: thread.id }, 'codex thread started');
    }
    this.threadId = thread.id;
    this.o.onThreadId(thread.id);
    return thread.id;
  }

  /** thread/resume, waiting while another Codex (a TUI, or the app-server it left) still writes the thread. */
  private async resume(server: AppServer, threadId: string, common: Omit<v2.ThreadResumeParams, 'threadId'>) {
    const until = Date.now() + OTHER_WRITER_WAIT_MS;
    for (let told = false; ; told = true) {
      try {
        return (await server.request('thread/resume', { threadId, ...common })).thread;
      } catch (err) {
        if (!(err instanceof CodexRpcError && OTHER_WRITER.test(err.message))) throw err;
        if (Date.now() >= until)
          throw new RudderError(
            'SESSION_IN_TERMINAL',
            `Codex still has thread ${threadId} open elsewhere (a Codex TUI, or the app-server it leaves running ` +
              'for a while after it closes: `codex agents` lists it). Close it there, then /retry.',
            { conversationId: this.o.launch.conversationId, sessionId: threadId },
          );
        if (!told) this.o.log.info({ threadId }, 'another codex still writes the thread: waiting for it to let go');
        await new Promise((r) => setTimeout(r, OTHER_WRITER_POLL_MS));
      }
    }
  }

  /**
   * The inputs a resumed thread already holds, from the client ids of its userMessage items. What
   * was seen before counts no more: codex may not have written the last items to its rollout when
   * it died, and then the thread does not hold them.
   */
  private noteHistory(thread: v2.Thread): void {
    this.held.clear();
    for (const turn of thread.turns)
      for (const item of turn.items)
        if (item.type === 'userMessage') for (const id of decodeClientId(item.clientId) ?? []) this.held.add(id);
  }
}
