/**
 * The gateway as the HTTP layer sees it: a narrow API over the services, keyed by a web
 * conversation's key (the page's conversations are the `web` channel's). Every answer is plain
 * data of types.ts; nothing here knows about HTTP.
 */
import { randomUUID } from 'node:crypto';
import type { AcceptResult } from '../../channels/channel.js';
import { hasQrPairing } from '../../channels/registry.js';
import { WEB } from '../../channels/web/name.js';
import type { PaneRef } from '../../projects/attach-commands.js';
import type { FileRef } from '../../projects/changes/changes.js';
import type { ProjectCommandDeps } from '../../projects/command-deps.js';
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';
import type { BusEvent, EventBus } from '../bus.js';
import type { Chats } from '../chats.js';
import type { Stopper } from '../commands/stop.js';
import { editMessage, type WaitingChange, type WaitingDeps, withdrawMessage } from '../commands/waiting.js';
import type { Intake } from '../intake/intake.js';
import { conversationIdOf } from '../intake/intake.js';
import type { HookAnswer, HookReceiver } from '../jobs/hook-receiver.js';
import type { Schedules } from '../jobs/schedules.js';
import type { RunsPage, ScheduleBody, ScheduleChange, ScheduleList } from '../jobs/types.js';
import type { AnswerResult, PermissionDesk } from '../permissions/desk.js';
import { PROPOSE_COMMIT_TEXT } from '../review/propose.js';
import type { PageComment, Reviews } from '../review/reviews.js';
import type { StatusReporter } from '../status/report.js';
import type { StatusReport } from '../status/report-types.js';
import type { StepLog } from '../steps/step-log.js';
import { eventsAfter } from '../stored-events.js';
import { conversationItem, listConversations, titleFromFirstMessage } from './conversation-list.js';
import { historyPage } from './history.js';
import type { PushApi } from './push-api.js';
import { attachRunning, runningList } from './running.js';
import type { PageSpeech } from './speech.js';
import { backFromTerminal, openInTerminal, type TerminalDeps, terminalPlan } from './terminal.js';
import type {
  ConversationItem,
  HistoryPage,
  ProjectList,
  RunningList,
  SpeechInfo,
  StopBody,
  TerminalAnswer,
  TerminalPlan,
  TurnsPage,
  WaitingRequest,
} from './types.js';
import { answerInChat, waitingInChats } from './waiting.js';

export interface GatewayApiDeps extends WaitingDeps, Pick<TerminalDeps, 'launches' | 'agent'> {
  store: Store;
  bus: EventBus;
  chats: Chats;
  intake: Intake;
  desk: PermissionDesk;
  stopper: Stopper;
  steps: StepLog;
  projects: Projects;
  status: StatusReporter;
  reviews: Reviews;
  push: PushApi;
  /** Recordings from the page and the audio of replies. */
  speech: PageSpeech;
  /** Schedules as the page manages them; webhook deliveries. */
  schedules: Schedules;
  hooks: HookReceiver;
  /** The person's tmux servers looked in for running Claude Code TUIs (agent.tmux.discover). */
  tmuxServers(): readonly string[];
  /** What /attach uses for one conversation: "Continue here" attaches a new one the same way. */
  projectDeps(conversationId: string): ProjectCommandDeps;
  /** Asks the node a project lives on: what runs in its tmux panes. */
  askNode?: ProjectCommandDeps['askNode'];
}

/** Who the page is, as answers and messages record it. */
const PAGE = 'web:owner';

export class GatewayApi {
  /** Notifications: subscriptions, mute, presence, a notification's buttons. */
  readonly push: PushApi;

  constructor(private readonly d: GatewayApiDeps) {
    this.push = d.push;
  }

  /** A message from the page: the web channel's owner, committed through intake like any other. */
  async send(key: string, text: string, clientMessageId?: string): Promise<AcceptResult> {
    const result = await this.d.intake.accept({
      channel: WEB,
      platformMessageId: clientMessageId ?? `web-${randomUUID()}`,
      conversationKey: key,
      sender: { id: 'owner', name: 'web' },
      chatType: 'direct',
      text,
      sentAt: Date.now(),
    });
    if (!['refused', 'duplicate', 'command'].includes(result.disposition)) {
      const id = conversationIdOf(WEB, key);
      titleFromFirstMessage(this.d, id, text);
      // Writing in an archived conversation brings it back to the list.
      if (this.d.store.conversation(id)?.archivedAt) this.d.store.setArchived(id, null);
    }
    return result;
  }

  /** A recording from the page: a voice note, through the same speech-to-text path as a chat's. */
  async sendVoice(key: string, audio: Buffer, mime: string, clientMessageId?: string): Promise<AcceptResult> {
    return this.d.speech.record(WEB, key, audio, mime, clientMessageId);
  }

  /** The spoken audio of a reply (tts.command). */
  replyAudio(key: string, replyId: string) {
    return this.d.speech.replyAudio(WEB, key, replyId);
  }

  speech(): SpeechInfo {
    return this.d.speech.info();
  }

  conversations(archived: boolean): ConversationItem[] {
    return listConversations(this.d, WEB, archived);
  }

  conversation(key: string): ConversationItem | undefined {
    const row = this.d.store.conversation(conversationIdOf(WEB, key));
    return row && conversationItem(this.d, row);
  }

  /** A new conversation in a project (the default one when not named); undefined when there is no such project. */
  createConversation(
    title: string | null,
    projectName: string | undefined,
  ): { id: string; project: string } | undefined {
    const { projects, store } = this.d;
    const project = projectName === undefined ? projects.initial(WEB, '') : projects.find(projectName);
    if (!project) return undefined;
    const key = `c-${randomUUID().slice(0, 8)}`;
    const id = conversationIdOf(WEB, key);
    store.ensureConversation(id, WEB, key, title ?? undefined);
    store.setProject(id, project.name, null);
    return { id: key, project: project.name };
  }

  updateConversation(
    key: string,
    change: { title?: string; archived?: boolean; muted?: boolean },
  ): ConversationItem | undefined {
    const id = conversationIdOf(WEB, key);
    if (!this.d.store.conversation(id)) return undefined;
    if (change.title !== undefined) this.d.store.setTitle(id, change.title);
    if (change.archived !== undefined) this.d.store.setArchived(id, change.archived ? Date.now() : null);
    if (change.muted !== undefined) this.d.push.setMuted(key, change.muted);
    return this.conversation(key);
  }

  markRead(key: string, eventId: number): ConversationItem | undefined {
    const id = conversationIdOf(WEB, key);
    if (!this.d.store.conversation(id)) return undefined;
    this.d.store.markRead(id, eventId);
    return this.conversation(key);
  }

  history(key: string, before: number | undefined, limit: number): HistoryPage {
    return historyPage(this.d, conversationIdOf(WEB, key), before, limit);
  }

  turns(key: string, opts: { before?: number; limit?: number }): TurnsPage {
    return this.d.steps.history(conversationIdOf(WEB, key), opts);
  }

  /** The page's view of the event log: the newest seq, a page after one, and the live events. */
  events(key: string) {
    const id = conversationIdOf(WEB, key);
    const { store, bus, log } = this.d;
    store.ensureConversation(id, WEB, key);
    return {
      conversationId: id,
      lastSeq: () => store.lastEventSeq(id),
      since: (seq: number, limit: number) => eventsAfter(store, id, seq, limit, log),
      subscribe: (l: (e: BusEvent) => void) => bus.subscribe(id, l),
    };
  }

  answerPermission(key: string, requestId: string, optionId: string): AnswerResult {
    return this.d.desk.answer(conversationIdOf(WEB, key), requestId, optionId, PAGE, 'page');
  }

  /** Permission requests waiting in the chats' conversations (the page's own show in their timelines). */
  waitingInChats(): WaitingRequest[] {
    return waitingInChats(this.d);
  }

  /** Answers a request waiting in a chat's conversation, as the page's owner. */
  answerInChat(requestId: string, optionId: string): AnswerResult {
    return answerInChat(this.d, requestId, optionId, PAGE);
  }

  /**
   * Stops the running turn and everything waiting, like /stop, without a message of its own: the
   * notice answers the stopped turn's messages (or what it dropped), so it shows beside them.
   */
  async stop(key: string): Promise<StopBody> {
    const r = await this.d.stopper.stopFromButton(conversationIdOf(WEB, key));
    return { stopped: r.wasRunning, notice: r.reply };
  }

  withdraw(key: string, messageId: string): WaitingChange {
    return withdrawMessage(this.d, conversationIdOf(WEB, key), messageId);
  }

  edit(key: string, messageId: string, text: string): WaitingChange {
    return editMessage(this.d, conversationIdOf(WEB, key), messageId, text);
  }

  projects(): ProjectList {
    const set = this.d.projects.set();
    return {
      projects: set.projects.map((p) => ({
        name: p.name,
        path: p.path,
        worktrees: !!p.worktrees,
        ...(p.node ? { node: p.node } : {}),
      })),
      defaultProject: set.defaultName,
    };
  }

  /** What runs now in a project's directory: the Claude Code TUIs in tmux panes, and why others cannot attach. */
  running(project: string): Promise<RunningList> {
    return runningList(this.d, project);
  }

  /** A new conversation in the project that drives the running pane named (refused as /attach refuses). */
  attachRunning(project: string, pane: PaneRef): Promise<{ id: string; project: string }> {
    return attachRunning(this.d, project, pane, (title, name) => this.createConversation(title, name));
  }

  /** What `rudder attach` will do with the conversation: its pane, a move of its headless session, a Codex line. */
  terminalPlan(key: string): Promise<TerminalPlan> {
    return terminalPlan(this.d, key);
  }

  /** Opens the conversation's session in a terminal (a headless one moves to a pane at a turn boundary). */
  openInTerminal(key: string): Promise<TerminalAnswer> {
    return openInTerminal(this.d, key);
  }

  /** A terminal program gave the session back (Codex closed): the messages it held run; how many (-1: none held). */
  backFromTerminal(key: string): number {
    return backFromTerminal(this.d, key);
  }

  /** Channel states, and the pairing QR code of a channel waiting to be linked (WhatsApp). */
  channels(): Array<{ name: string; state: string; detail?: string; qr?: string }> {
    return this.d.chats.all().map((c) => {
      const qr = hasQrPairing(c) ? c.qr() : undefined;
      return { ...c.status(), ...(qr ? { qr } : {}) };
    });
  }

  status(): StatusReport {
    return this.d.status.report();
  }

  // ---- the review of the conversation's work (gateway/review/reviews.ts) ----

  changes(key: string) {
    return this.d.reviews.changes(conversationIdOf(WEB, key));
  }

  fileDiff(key: string, ref: FileRef) {
    return this.d.reviews.of(conversationIdOf(WEB, key)).fileDiff(ref);
  }

  /** Line comments, as one message from the page through intake like any other (wrapped, steered or queued). */
  async sendComments(key: string, comments: PageComment[], clientMessageId?: string): Promise<AcceptResult> {
    return this.send(key, await this.d.reviews.commentsText(conversationIdOf(WEB, key), comments), clientMessageId);
  }

  /** Asks the agent for a commit message: a message from the page, like any other. */
  proposeCommit(key: string, clientMessageId?: string): Promise<AcceptResult> {
    return this.send(key, PROPOSE_COMMIT_TEXT, clientMessageId);
  }

  /** Asks the agent to resolve a merge's conflict in these files: a message from the page, like any other. */
  async askToResolve(key: string, files: string[], clientMessageId?: string): Promise<AcceptResult> {
    return this.send(key, await this.d.reviews.resolveText(conversationIdOf(WEB, key), files), clientMessageId);
  }

  commit(key: string, message: string) {
    return this.d.reviews.commit(conversationIdOf(WEB, key), message, PAGE);
  }

  merge(key: string) {
    return this.d.reviews.merge(conversationIdOf(WEB, key), PAGE);
  }

  /** Push of the reviewed branch (or its base) to the project's remote. */
  pushChanges(key: string, which: 'branch' | 'base') {
    return this.d.reviews.push(conversationIdOf(WEB, key), PAGE, which);
  }

  pullRequestAvailable(key: string) {
    return this.d.reviews.pullRequestAvailable(conversationIdOf(WEB, key));
  }

  openPullRequest(key: string, o: { title?: string; body?: string; draft?: boolean }) {
    return this.d.reviews.openPullRequest(conversationIdOf(WEB, key), PAGE, o);
  }

  discardPreview(key: string) {
    return this.d.reviews.discardPreview(conversationIdOf(WEB, key));
  }

  discard(key: string, confirm: string) {
    return this.d.reviews.discard(conversationIdOf(WEB, key), confirm, PAGE);
  }

  // ---- jobs: schedules (gateway/jobs/schedules.ts) and webhooks (hook-receiver.ts) ----

  schedules(): ScheduleList {
    return this.d.schedules.list();
  }

  scheduleRuns(name: string, before: number | undefined, limit: number): RunsPage | undefined {
    return this.d.schedules.runs(name, before, limit);
  }

  runSchedule(name: string): Promise<ScheduleChange> {
    return this.d.schedules.runNow(name, PAGE);
  }

  pauseSchedule(name: string, paused: boolean): ScheduleChange {
    return paused ? this.d.schedules.pause(name, PAGE) : this.d.schedules.resume(name, PAGE);
  }

  putSchedule(name: string, body: ScheduleBody): ScheduleChange {
    return this.d.schedules.put(name, body, PAGE);
  }

  removeSchedule(name: string): ScheduleChange {
    return this.d.schedules.remove(name, PAGE);
  }

  /** A webhook delivery, as POST /hooks/<name> received it: the raw body, as it was signed. */
  deliverHook(name: string, headers: Readonly<Record<string, string | string[] | undefined>>, body: Uint8Array) {
    return this.d.hooks.deliver(name, headers, body) satisfies Promise<HookAnswer>;
  }

  /** The project names (for a 400 that lists them). */
  projectNames(): string[] {
    return this.d.projects.set().projects.map((p) => p.name);
  }
}
