/**
 * The one client of the gateway: every request goes through here with the bearer token, and the
 * event stream (fetch, so the token stays in a header) reconnects with Last-Event-ID after a drop.
 * The token arrives once in the address (#token=…, as the startup line prints it), is kept in
 * localStorage and removed from the address bar.
 */
import type {
  AnswerPermissionRequest,
  AttachRunningRequest,
  ChangesBody,
  ChannelList,
  CommentsRequest,
  CommitResult,
  ConversationList,
  CreatedConversation,
  DiscardPreview,
  DiscardResult,
  FileDiff,
  LineCommentBody,
  MergeResult,
  OkBody,
  PatchConversationRequest,
  PresenceRequest,
  PullRequestAvailability,
  PullRequestRequest,
  PullRequestResult,
  PushInfo,
  PushResult,
  PushSubscribed,
  PushSubscribeRequest,
  PushTestResult,
  ResolveConflictRequest,
  RunningList,
  RunsPage,
  ScheduleBody,
  ScheduleChange,
  ScheduleList,
  Section,
  SpeechInfo,
  StopBody,
  WaitingList,
  WaitingMessageBody,
} from '../../src/http/wire.js';
import type { ConversationItem, HistoryPage, Project, SendResult, StreamEvent } from './types.js';

const TOKEN_KEY = 'rudder-token';
const EVENT_TYPES: ReadonlySet<string> = new Set<StreamEvent['type']>([
  'ack',
  'text',
  'reply',
  'permission',
  'error',
  'status',
  'step',
  'turn',
  'message',
  'review',
]);
/**
 * The server sends a comment every 15 s; a stream silent for longer than this is dead (a phone that slept, a dropped
 * Wi-Fi).
 */
const SILENCE_MS = 40_000;
const MAX_BACKOFF_MS = 10_000;
/** A request not answered in this long counts as the gateway unreachable (the message stays unsent, resent later). */
const REQUEST_TIMEOUT_MS = 20_000;
/** A review action runs git (a merge's hooks, a push over the network): it may take minutes. */
const ACTION_TIMEOUT_MS = 200_000;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The gateway could not be reached at all (stopped, or this device is offline). */
export class UnreachableError extends Error {}

/** Takes the token from the address (and strips it), else the one kept from before. */
export function takeToken(loc: Location = location, store: Storage = localStorage): string | undefined {
  const hash = new URLSearchParams(loc.hash.slice(1));
  const fresh = hash.get('token');
  if (fresh) {
    store.setItem(TOKEN_KEY, fresh);
    hash.delete('token');
    const rest = hash.toString();
    history.replaceState(null, '', loc.pathname + loc.search + (rest ? `#${rest}` : ''));
  }
  return store.getItem(TOKEN_KEY) ?? undefined;
}

const enc = encodeURIComponent;

export class Api {
  constructor(readonly token: string | undefined) {}

  private headers(json: boolean): Record<string, string> {
    return {
      ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
      ...(json ? { 'content-type': 'application/json' } : {}),
    };
  }

  /** `keepalive`: the request outlives the page (a last word as it is hidden or closed). */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    opts: { keepalive?: boolean; timeoutMs?: number } = {},
  ): Promise<T> {
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers: this.headers(body !== undefined),
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: 'no-store',
        keepalive: opts.keepalive ?? false,
        // A request into a dead network would otherwise wait for the browser to give up, minutes later.
        signal: AbortSignal.timeout(opts.timeoutMs ?? REQUEST_TIMEOUT_MS),
      });
    } catch (err) {
      throw new UnreachableError(`Cannot reach the gateway (${(err as Error).message}).`);
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      json = {};
    }
    if (!res.ok) {
      const e = (json as { error?: { code?: string; message?: string } }).error;
      throw new ApiError(res.status, e?.code ?? String(res.status), e?.message ?? `${res.status} ${res.statusText}`);
    }
    return json as T;
  }

  conversations(archived = false): Promise<ConversationList> {
    return this.request('GET', `/api/conversations${archived ? '?archived=1' : ''}`);
  }

  createConversation(opts: { title?: string; project?: string } = {}): Promise<CreatedConversation> {
    return this.request('POST', '/api/conversations', opts);
  }

  conversation(id: string): Promise<ConversationItem> {
    return this.request('GET', `/api/conversations/${enc(id)}`);
  }

  updateConversation(id: string, change: PatchConversationRequest): Promise<ConversationItem> {
    return this.request('PATCH', `/api/conversations/${enc(id)}`, change);
  }

  markRead(id: string, eventId: number): Promise<ConversationItem> {
    return this.request('POST', `/api/conversations/${enc(id)}/read`, { eventId });
  }

  history(id: string, before?: number | null, limit = 100): Promise<HistoryPage> {
    const q = new URLSearchParams({ limit: String(limit), ...(before != null ? { before: String(before) } : {}) });
    return this.request('GET', `/api/conversations/${enc(id)}/messages?${q}`);
  }

  send(id: string, text: string, clientMessageId: string): Promise<SendResult> {
    return this.request('POST', `/api/conversations/${enc(id)}/messages`, { text, clientMessageId });
  }

  withdraw(id: string, messageId: string): Promise<WaitingMessageBody> {
    return this.request('DELETE', `/api/conversations/${enc(id)}/messages/${enc(messageId)}`);
  }

  edit(id: string, messageId: string, text: string): Promise<WaitingMessageBody> {
    return this.request('PATCH', `/api/conversations/${enc(id)}/messages/${enc(messageId)}`, { text });
  }

  stop(id: string): Promise<StopBody> {
    return this.request('POST', `/api/conversations/${enc(id)}/stop`, {});
  }

  answerPermission(id: string, requestId: string, optionId: string): Promise<OkBody> {
    const body: AnswerPermissionRequest = { optionId };
    return this.request('POST', `/api/conversations/${enc(id)}/permissions/${enc(requestId)}`, body);
  }

  pushInfo(): Promise<PushInfo> {
    return this.request('GET', '/api/push');
  }

  subscribePush(subscription: PushSubscribeRequest): Promise<PushSubscribed> {
    return this.request('POST', '/api/push/subscriptions', subscription);
  }

  unsubscribePush(id: string): Promise<OkBody> {
    return this.request('DELETE', `/api/push/subscriptions/${enc(id)}`);
  }

  testPush(): Promise<PushTestResult> {
    return this.request('POST', '/api/push/test', {});
  }

  /** What this page shows, visible and in use (null: nothing); kept alive when the page is going away. */
  presence(body: PresenceRequest, keepalive: boolean): Promise<OkBody> {
    return this.request('POST', '/api/push/presence', body, { keepalive });
  }

  /** Permission requests waiting in the chats' conversations (Telegram, Discord…). */
  waitingInChats(): Promise<WaitingList> {
    return this.request('GET', '/api/permissions');
  }

  answerInChat(requestId: string, optionId: string): Promise<OkBody> {
    const body: AnswerPermissionRequest = { optionId };
    return this.request('POST', `/api/permissions/${enc(requestId)}`, body);
  }

  /** Every schedule, its next runs and its last one (GET /api/schedules). */
  schedules(): Promise<ScheduleList> {
    return this.request('GET', '/api/schedules');
  }

  scheduleRuns(name: string, limit = 20): Promise<RunsPage> {
    return this.request('GET', `/api/schedules/${enc(name)}/runs?limit=${limit}`);
  }

  runSchedule(name: string): Promise<ScheduleChange> {
    return this.request('POST', `/api/schedules/${enc(name)}/run`, {});
  }

  /** Makes or changes a schedule kept in the store; answers with its cron line and next three runs. */
  putSchedule(name: string, body: ScheduleBody): Promise<ScheduleChange> {
    return this.request('PUT', `/api/schedules/${enc(name)}`, body);
  }

  pauseSchedule(name: string, paused: boolean): Promise<ScheduleChange> {
    return this.request('POST', `/api/schedules/${enc(name)}/${paused ? 'pause' : 'resume'}`, {});
  }

  /** Removes a kept schedule (the config file's are refused: 409 SCHEDULE_REFUSED). */
  removeSchedule(name: string): Promise<ScheduleChange> {
    return this.request('DELETE', `/api/schedules/${enc(name)}`);
  }

  /** What the page offers: a record button (stt.command), play buttons (tts.command). */
  speech(): Promise<SpeechInfo> {
    return this.request('GET', '/api/speech');
  }

  /** A recording from the composer: sent as it is (its audio type), a voice note like a chat's. */
  async sendVoice(id: string, audio: Blob, clientMessageId: string): Promise<SendResult> {
    const q = new URLSearchParams({ clientMessageId });
    const res = await this.raw('POST', `/api/conversations/${enc(id)}/voice?${q}`, audio, {
      'content-type': audio.type || 'audio/webm',
    });
    return (await res.json()) as SendResult;
  }

  /** A reply spoken (tts.command), as audio to play; made by the gateway the first time it is asked. */
  async replyAudio(id: string, replyId: string): Promise<Blob> {
    const res = await this.raw('GET', `/api/conversations/${enc(id)}/replies/${enc(replyId)}/audio`);
    return res.blob();
  }

  /** A request whose body or answer is not JSON; errors as request() throws them. */
  private async raw(
    method: string,
    path: string,
    body?: Blob,
    headers: Record<string, string> = {},
  ): Promise<Response> {
    let res: Response;
    try {
      res = await fetch(path, {
        method,
        headers: { ...this.headers(false), ...headers },
        body,
        cache: 'no-store',
        // Speaking a long reply takes a while: longer than a plain request may.
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS * 6),
      });
    } catch (err) {
      throw new UnreachableError(`Cannot reach the gateway (${(err as Error).message}).`);
    }
    if (res.ok) return res;
    let e: { code?: string; message?: string } | undefined;
    try {
      e = ((await res.json()) as { error?: { code?: string; message?: string } }).error;
    } catch {
      e = undefined;
    }
    throw new ApiError(res.status, e?.code ?? String(res.status), e?.message ?? `${res.status} ${res.statusText}`);
  }

  channels(): Promise<ChannelList> {
    return this.request('GET', '/api/channels');
  }

  /** The projects to start a conversation in (a gateway without a `projects` config has one, its working directory). */
  projects(): Promise<{ projects: Project[]; defaultProject?: string }> {
    return this.request('GET', '/api/projects');
  }

  /** What runs now in a project's directory: Claude Code TUIs in tmux panes, and the claudes that cannot attach. */
  running(project: string): Promise<RunningList> {
    return this.request('GET', `/api/projects/${enc(project)}/running`, undefined, { timeoutMs: ACTION_TIMEOUT_MS });
  }

  /** A new conversation in the project that drives the running pane (as /attach does). */
  attachRunning(project: string, pane: AttachRunningRequest): Promise<CreatedConversation> {
    return this.request('POST', `/api/projects/${enc(project)}/running/attach`, pane, { timeoutMs: ACTION_TIMEOUT_MS });
  }

  // ---- the review of a conversation's work ----

  changes(id: string): Promise<ChangesBody> {
    return this.request('GET', `/api/conversations/${enc(id)}/changes`, undefined, { timeoutMs: ACTION_TIMEOUT_MS });
  }

  changedFile(id: string, ref: { section: Section; path: string; oldPath?: string }): Promise<FileDiff> {
    const q = new URLSearchParams({
      section: ref.section,
      path: ref.path,
      ...(ref.oldPath ? { oldPath: ref.oldPath } : {}),
    });
    return this.request('GET', `/api/conversations/${enc(id)}/changes/file?${q}`, undefined, {
      timeoutMs: ACTION_TIMEOUT_MS,
    });
  }

  sendComments(id: string, comments: LineCommentBody[], clientMessageId: string): Promise<SendResult> {
    const body: CommentsRequest = { comments, clientMessageId };
    return this.request('POST', `/api/conversations/${enc(id)}/changes/comments`, body, {
      timeoutMs: ACTION_TIMEOUT_MS,
    });
  }

  proposeCommit(id: string): Promise<SendResult> {
    return this.request('POST', `/api/conversations/${enc(id)}/changes/propose-commit`, {});
  }

  /** Asks the agent to resolve the conflict a merge stopped on (one message, through intake like any other). */
  askToResolve(id: string, files: string[], clientMessageId: string): Promise<SendResult> {
    const body: ResolveConflictRequest = { files, clientMessageId };
    return this.request('POST', `/api/conversations/${enc(id)}/changes/resolve-conflict`, body, {
      timeoutMs: ACTION_TIMEOUT_MS,
    });
  }

  commit(id: string, message: string): Promise<CommitResult> {
    return this.request(
      'POST',
      `/api/conversations/${enc(id)}/changes/commit`,
      { message },
      { timeoutMs: ACTION_TIMEOUT_MS },
    );
  }

  merge(id: string): Promise<MergeResult> {
    return this.request('POST', `/api/conversations/${enc(id)}/changes/merge`, {}, { timeoutMs: ACTION_TIMEOUT_MS });
  }

  push(id: string, which: 'branch' | 'base' = 'branch'): Promise<PushResult> {
    return this.request(
      'POST',
      `/api/conversations/${enc(id)}/changes/push`,
      { which },
      { timeoutMs: ACTION_TIMEOUT_MS },
    );
  }

  pullRequestAvailable(id: string): Promise<PullRequestAvailability> {
    return this.request('GET', `/api/conversations/${enc(id)}/changes/pull-request`, undefined, {
      timeoutMs: ACTION_TIMEOUT_MS,
    });
  }

  openPullRequest(id: string, body: PullRequestRequest = {}): Promise<PullRequestResult> {
    return this.request('POST', `/api/conversations/${enc(id)}/changes/pull-request`, body, {
      timeoutMs: ACTION_TIMEOUT_MS,
    });
  }

  discardPreview(id: string): Promise<DiscardPreview> {
    return this.request('GET', `/api/conversations/${enc(id)}/changes/discard`, undefined, {
      timeoutMs: ACTION_TIMEOUT_MS,
    });
  }

  discard(id: string, confirm: string): Promise<DiscardResult> {
    return this.request(
      'POST',
      `/api/conversations/${enc(id)}/changes/discard`,
      { confirm },
      { timeoutMs: ACTION_TIMEOUT_MS },
    );
  }

  /** Follows a conversation's events from `lastEventId`; reconnects until closed. */
  events(conversationId: string, lastEventId: number, on: StreamHandlers): EventStream {
    const s = new EventStream(this, `/api/conversations/${enc(conversationId)}/events`, lastEventId, on);
    s.start();
    return s;
  }

  streamHeaders(lastEventId: number): Record<string, string> {
    return { ...this.headers(false), accept: 'text/event-stream', 'last-event-id': String(lastEventId) };
  }
}

export interface StreamHandlers {
  event(e: StreamEvent): void;
  state(s: 'connecting' | 'live' | 'reconnecting' | 'unreachable' | 'unauthorized', detail?: string): void;
}

/** Parses SSE blocks ("id:", "event:", "data:" lines, blank-line separated); returns what is left over. */
export function parseSse(buffer: string, emit: (e: StreamEvent) => void): string {
  const blocks = buffer.split(/\r?\n\r?\n/);
  const rest = blocks.pop() ?? '';
  for (const block of blocks) {
    let id: number | undefined;
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id' && /^\d+$/.test(value)) id = Number(value);
      else if (field === 'event') type = value;
      else if (field === 'data') data.push(value);
    }
    if (!data.length) continue;
    try {
      // The gateway sends only the wire's events (src/http/wire.ts); an unknown type is skipped.
      if (!EVENT_TYPES.has(type)) continue;
      emit({ id, type, data: JSON.parse(data.join('\n')) } as StreamEvent);
    } catch {
      // A malformed event is skipped, never fatal to the stream.
    }
  }
  return rest;
}

export class EventStream {
  private closed = false;
  private abort: AbortController | undefined;
  private attempt = 0;
  private lastData = 0;
  /** Ends the wait between attempts early (nudge). */
  private wake: (() => void) | undefined;

  constructor(
    private readonly api: Api,
    private readonly path: string,
    /** The last event id seen: sent as Last-Event-ID so a reconnect replays what was missed. */
    public lastEventId: number,
    private readonly on: StreamHandlers,
  ) {}

  start(): void {
    void this.loop();
  }

  close(): void {
    this.closed = true;
    this.abort?.abort();
  }

  /**
   * The page came back to the foreground or online: retry now if waiting, reconnect if the stream went quiet (a phone
   * that slept).
   */
  nudge(): void {
    this.attempt = 0;
    if (this.wake) this.wake();
    else if (Date.now() - this.lastData > SILENCE_MS / 2) this.abort?.abort();
  }

  private async loop(): Promise<void> {
    this.on.state('connecting');
    while (!this.closed) {
      let delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(this.attempt, 4));
      try {
        await this.connect();
      } catch (err) {
        if (this.closed) return;
        if (err instanceof ApiError && err.status === 401) {
          this.on.state('unauthorized', err.message);
          delay = MAX_BACKOFF_MS;
        } else {
          this.on.state(this.attempt >= 2 ? 'unreachable' : 'reconnecting', (err as Error).message);
        }
      }
      if (this.closed) return;
      if (this.attempt === 0) this.on.state('reconnecting');
      this.attempt++;
      await new Promise<void>((r) => {
        const t = setTimeout(r, this.attempt === 1 ? 250 : delay);
        this.wake = () => (clearTimeout(t), r());
      });
      this.wake = undefined;
    }
  }

  private async connect(): Promise<void> {
    const abort = (this.abort = new AbortController());
    let res: Response;
    try {
      res = await fetch(this.path, {
        headers: this.api.streamHeaders(this.lastEventId),
        signal: abort.signal,
        cache: 'no-store',
      });
    } catch (err) {
      throw new UnreachableError((err as Error).message);
    }
    if (!res.ok || !res.body)
      throw new ApiError(res.status, String(res.status), `The event stream answered ${res.status}.`);
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let silence = setTimeout(() => abort.abort(), SILENCE_MS);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        this.lastData = Date.now();
        clearTimeout(silence);
        silence = setTimeout(() => abort.abort(), SILENCE_MS);
        buffer = parseSse(buffer + decoder.decode(value, { stream: true }), (e) => {
          if (e.id !== undefined) this.lastEventId = Math.max(this.lastEventId, e.id);
          if (e.type === 'status' && e.data.state === 'connected') {
            this.attempt = 0;
            this.on.state('live');
          }
          this.on.event(e);
        });
      }
    } finally {
      clearTimeout(silence);
      abort.abort();
    }
  }
}
