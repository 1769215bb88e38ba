/**
 * The gateway, wired: the table of contents of the system. One call starts it (store, agents,
 * channels, recovery, delivery); one call stops it (drain in-flight turns for a bounded time,
 * then stop every agent process, the channels and the store).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { resolveClaudeBinary } from '../agents/claude/binary.js';
import { buildAgentEnv } from '../agents/claude/env.js';
import { type ClaudeCheck, ClaudeHealth } from '../agents/claude/health.js';
import type { ClaudeLaunch } from '../agents/claude/launch.js';
import { SpareProcess } from '../agents/claude/spare.js';
import { ClaudeStreamSession } from '../agents/claude/stream-session.js';
import { AgentPool, type SessionFactory } from '../agents/pool.js';
import { SessionRegistry, warmCap } from '../agents/registry.js';
import { paneName, type TmuxLaunch } from '../agents/tmux/tmux-launch.js';
import { ClaudeTmuxSession } from '../agents/tmux/tmux-session.js';
import type { Channel } from '../channels/channel.js';
import { createChannels } from '../channels/registry.js';
import { WebChannel } from '../channels/web/channel.js';
import { loadOrCreateToken } from '../channels/web/token.js';
import { checkProjects, type LiveConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { LocalModel } from '../fallback/local-model.js';
import { acquireLock, type DataDirLock } from '../ops/lock.js';
import type { Logger } from '../ops/logger.js';
import { memAvailableBytes } from '../ops/proc.js';
import { registerSecret } from '../ops/redact.js';
import { projectAgent } from '../projects/projects.js';
import { Projects } from '../projects/service.js';
import { AccessControl } from '../security/access.js';
import { AccessStore } from '../security/access-store.js';
import { Store } from '../store/store.js';
import { EventBus } from './bus.js';
import { ChannelStarter } from './channel-start.js';
import { GatewayCore } from './core.js';
import { Delivery } from './delivery.js';
import { ProgressDriver } from './progress/driver.js';
import { PermissionPrompts } from './progress/prompts.js';
import { killOrphans, recoverOpenMessages } from './recovery.js';
import { StepLog } from './steps/step-log.js';

export interface GatewayOptions {
  dataDir: string;
  config: LiveConfig;
  logger: Logger;
  env?: NodeJS.ProcessEnv;
  /** Channels supplied by the caller (tests, embedding), started like the configured ones. */
  extraChannels?: Channel[];
  /** The data dir's lock, when the caller took it already (`rudder start` does, first thing). */
  lock?: DataDirLock;
  /** Aborts the wait for chat channels at startup (a signal arrived). */
  signal?: AbortSignal;
  /** Replaces the Claude session factory (benchmarks measure the gateway with an in-process fake agent). */
  sessionFactory?: (
    launchFor: (conversationId: string, sessionId: string | undefined) => ClaudeLaunch,
  ) => SessionFactory;
}

export interface RunningGateway {
  core: GatewayCore;
  web: WebChannel | undefined;
  /** The claude binary checked at start: a missing or broken one is reported, not fatal. */
  claude: Promise<ClaudeCheck>;
  stop(reason: string): Promise<void>;
}

const EVENT_RETENTION_MS = 7 * 24 * 3600_000;

/** Tokens and keys from the config never reach the log, whatever a library puts in an error. */
function registerConfigSecrets(cfg: Config): void {
  const ch = cfg.channels;
  for (const v of [
    ch.telegram?.token,
    ch.telegram?.webhook?.secretToken,
    ch.discord?.token,
    ch.slack?.botToken,
    ch.slack?.appToken,
    cfg.fallback?.apiKey,
  ])
    registerSecret(v?.trim());
  for (const [k, v] of Object.entries(cfg.agent.env)) if (/KEY|TOKEN|SECRET|PASSWORD/i.test(k)) registerSecret(v);
}

export async function startGateway(opts: GatewayOptions): Promise<RunningGateway> {
  // One gateway per data dir, before anything in it is touched: a second start must not sweep
  // the first one's agents as orphans.
  const lock = opts.lock ?? acquireLock(opts.dataDir);
  try {
    return await startLocked(opts, lock);
  } catch (err) {
    if (!opts.lock) lock.release();
    throw err;
  }
}

async function startLocked(opts: GatewayOptions, lock: DataDirLock): Promise<RunningGateway> {
  const log = opts.logger;
  const env = opts.env ?? process.env;
  const cfg = opts.config.current();
  registerConfigSecrets(cfg);
  // A project inside this data dir is refused before anything starts.
  checkProjects(cfg, opts.dataDir);
  const store = new Store(path.join(opts.dataDir, 'rudder.db'), {
    backgroundCheckpoints: true,
    synchronous: cfg.store.synchronous,
    groupCommit: cfg.store.groupCommit,
    onError: (message) =>
      log.warn({ err: message }, 'WAL checkpoint failed; SQLite keeps the data in the WAL meanwhile'),
  });
  const accessStore = new AccessStore(store.db);
  accessStore.init();
  // The mark prefix names this data dir, so a restart finds exactly this gateway's leftovers.
  const markPrefix = `rudder-${createHash('sha256').update(path.resolve(opts.dataDir)).digest('hex').slice(0, 12)}`;
  killOrphans(store, log, markPrefix);
  store.pruneEvents(EVENT_RETENTION_MS);

  const memAvailable = memAvailableBytes();
  const cap = warmCap(cfg.steering.maxLive, memAvailable);
  log.info({ maxLive: cap.maxLive, why: cap.why }, 'idle agent processes kept warm');
  const registry = new SessionRegistry({ maxLive: cap.maxLive, idleMinutes: cfg.steering.idleMinutes, logger: log });
  const projects = new Projects({ store, config: () => opts.config.current(), env, log });
  const spare = new SpareProcess(log);
  const launchFor = (conversationId: string, sessionId: string | undefined): ClaudeLaunch => {
    const agent = opts.config.current().agent;
    const spareOn = opts.config.current().steering.spareProcess;
    if (!spareOn && spare.ready()) void spare.stop('steering.spareProcess turned off');
    // The conversation's project: its directory (or its own worktree there) and its agent settings.
    const target = projects.prepare(conversationId);
    const settings = projectAgent(agent, target.project);
    const conv = store.conversation(conversationId);
    let bin: string;
    try {
      bin = resolveClaudeBinary(agent.claudeBin, env).path;
    } catch (err) {
      log.error({ err: (err as Error).message }, 'no claude binary: run `rudder doctor`');
      bin = agent.claudeBin ?? 'claude';
    }
    return {
      conversationId,
      cwd: target.cwd,
      bin,
      env: buildAgentEnv({ inherited: env, passVars: agent.passEnv, extra: agent.env }),
      logger: log,
      sessionId: target.rebound ? (conv?.sessionId ?? undefined) : sessionId,
      model: conv?.model ?? settings.model,
      permissionMode: settings.permissionMode,
      allowedTools: settings.allowedTools,
      disallowedTools: settings.disallowedTools,
      appendSystemPrompt: settings.appendSystemPrompt,
      autocompact: agent.autocompact,
      turnTimeoutMs: agent.turnTimeoutSeconds * 1000,
      interruptGraceMs: agent.interruptGraceSeconds * 1000,
      // Kept per project: a late report from a process of the project it left must not land in the new one.
      onSessionId: (id) => store.setProjectSession(conversationId, target.project.name, id),
      tracker: { started: (pid, label) => store.processStarted(pid, label), exited: (pid) => store.processExited(pid) },
      markPrefix,
      spare: spareOn ? spare : undefined,
    };
  };
  const tmuxLaunchFor = (conversationId: string, sessionId: string | undefined): TmuxLaunch => {
    const t = opts.config.current().agent.tmux;
    const settings = {
      socket: t.socket,
      width: t.width,
      height: t.height,
      pasteFileThresholdBytes: t.pasteFileThresholdBytes,
      messageDir: path.join(opts.dataDir, 'tmux-messages', paneName(conversationId)),
      readyTimeoutMs: t.readyTimeoutSeconds * 1000,
      arrivalRetries: t.arrivalRetries,
      arrivalTimeoutMs: t.arrivalTimeoutSeconds * 1000,
      autoAllow: t.autoAllow,
    };
    return { ...launchFor(conversationId, sessionId), tmux: settings };
  };
  // The backend is read when a session is created.
  const factory: SessionFactory = opts.sessionFactory?.(launchFor) ?? {
    live: (c, s) =>
      projectAgent(opts.config.current().agent, projects.peek(c)).backend === 'claude-tmux'
        ? new ClaudeTmuxSession(tmuxLaunchFor(c, s))
        : new ClaudeStreamSession(launchFor(c, s)),
  };
  const pool = new AgentPool(registry, factory);
  const bus = new EventBus(store);
  let localModel: { key: string; model: LocalModel } | undefined;
  const core = new GatewayCore({
    config: opts.config,
    store,
    bus,
    registry,
    pool,
    access: new AccessControl({ store: accessStore, config: opts.config.current().channels as never }),
    log,
    steps: new StepLog(store, bus, log),
    env,
    projects,
    localModel: () => {
      const f = opts.config.current().fallback;
      if (!f) return undefined;
      const key = JSON.stringify(f);
      if (localModel?.key !== key) localModel = { key, model: new LocalModel(f) };
      return localModel.model;
    },
    memAvailable,
  });
  const claude = new ClaudeHealth(() => {
    const agent = opts.config.current().agent;
    return {
      configured: agent.claudeBin,
      env,
      agentEnv: buildAgentEnv({ inherited: env, passVars: agent.passEnv, extra: agent.env }),
    };
  });
  core.claudeHealth = claude;
  const claudeChecked = claude.refresh();
  core.delivery = new Delivery(
    store,
    bus,
    (id) => {
      const conv = store.conversation(id);
      return conv ? { channel: core.channels.get(conv.channel), key: conv.key } : undefined;
    },
    log,
  );
  core.prompts = new PermissionPrompts({
    log,
    target: (id) => core.chatOf(id),
    sendNotice: (id, text, messageId) =>
      core.send(id, 'notice', text, messageId ? [store.message(messageId)].filter((r) => r !== undefined) : []),
    answer: (id, requestId, optionId, by) =>
      core.answerPermission(
        id,
        requestId,
        optionId === 'allow',
        optionId === 'allow' || optionId === 'deny' ? undefined : optionId,
        by,
      ),
  });
  core.progress = new ProgressDriver({
    steps: core.steps,
    bus,
    log,
    settings: () => opts.config.current(),
    target: (id) => core.chatOf(id),
    queued: (id) => core.lanes.get(id)?.queueDepth() ?? 0,
    sendText: (id, text, inputIds) =>
      core.send(
        id,
        'notice',
        text,
        inputIds.map((m) => store.message(m)).filter((r) => r !== undefined),
      ),
  });

  let web: WebChannel | undefined;
  const channels: Channel[] = [...(opts.extraChannels ?? [])];
  if (cfg.web.enabled) {
    const token = loadOrCreateToken(opts.dataDir);
    registerSecret(token);
    web = new WebChannel({
      host: cfg.web.host,
      port: cfg.web.port,
      allowedHosts: cfg.web.allowedHosts,
      token,
      logger: log,
    });
    web.bind(core);
  }
  try {
    channels.push(...(await createChannels(cfg.channels, { dataDir: opts.dataDir, logger: log })));
  } catch (err) {
    log.error({ err: (err as Error).message }, 'a chat channel could not be created');
  }
  if (web) core.channels.set(web.name, web);
  for (const ch of channels) core.channels.set(ch.name, ch);

  // Recovered messages are put back in line before any channel can deliver a new one.
  const recovered = await recoverOpenMessages(core);
  if (Object.values(recovered).some((n) => n > 0)) log.info(recovered, 'recovered open messages from the previous run');

  if (web) {
    try {
      await web.start(core);
      log.info({ channel: web.name, url: web.baseUrl() }, 'channel started');
    } catch (err) {
      // Without its own page the gateway does not run: undo what recovery started.
      log.error({ channel: web.name, err: (err as Error).message }, 'the web channel failed to start');
      await Promise.all([
        pool.stopAll('the web channel could not start'),
        spare.stop('the web channel could not start', true),
      ]);
      await Promise.allSettled([...core.channels.values()].map((c) => c.stop()));
      await store.close();
      throw err;
    }
  }
  // The chat channels all at once: one that cannot reach its platform holds up nothing else.
  const starter = new ChannelStarter(core, log, () => core.delivery.kickAll());
  core.channelStarts = starter;
  await starter.startAll(channels, opts.config.current().channelStartTimeoutSeconds * 1000, opts.signal);
  core.delivery.kickAll();
  registry.startReaper();

  let stopping: Promise<void> | undefined;
  const stop = (reason: string) =>
    (stopping ??= (async () => {
      const drainMs = opts.config.current().shutdownDrainSeconds * 1000;
      log.info({ reason, drainSeconds: drainMs / 1000 }, 'stopping: draining in-flight turns');
      core.markShuttingDown();
      starter.stop();
      const end = Date.now() + drainMs;
      while (Date.now() < end && [...core.lanes.values()].some((l) => l.busy()))
        await new Promise((r) => setTimeout(r, 50));
      await Promise.all([
        pool.stopAll(`gateway stopping (${reason})`),
        spare.stop(`gateway stopping (${reason})`, true),
      ]);
      await core.delivery.idle(2000);
      core.delivery.stop();
      core.progress?.stop();
      for (const l of core.lanes.values()) l.dispose();
      await Promise.allSettled([...core.channels.values()].map((c) => c.stop()));
      core.steps.flush();
      await store.close();
      log.info('stopped');
      if (!opts.lock) lock.release();
    })());

  return { core, web, claude: claudeChecked, stop };
}
