/** The schema, as an ordered list of migrations; user_version records how many have run. */
export const MIGRATIONS: string[] = [
  `
  CREATE TABLE conversations (
    id TEXT PRIMARY KEY,               -- "<channel>:<conversation key>"
    channel TEXT NOT NULL,
    key TEXT NOT NULL,
    title TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    session_id TEXT,                   -- the agent session to resume
    model TEXT,                        -- /model override
    queue_mode TEXT,                   -- /queue override
    cutoff_at INTEGER                  -- /stop: messages sent before this are ignored
  );
  CREATE TABLE messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL,
    channel TEXT NOT NULL,
    platform_message_id TEXT NOT NULL,
    sender_id TEXT NOT NULL,
    text TEXT NOT NULL,
    extra TEXT,                        -- JSON: sender name, chat type, quoted text, attachments
    sent_at INTEGER,
    received_at INTEGER NOT NULL,
    state TEXT NOT NULL,
    reason TEXT,
    was_queued INTEGER NOT NULL DEFAULT 0,
    attempts INTEGER NOT NULL DEFAULT 0,
    turn_id TEXT,
    retry_at INTEGER,
    updated_at INTEGER NOT NULL,
    UNIQUE (channel, platform_message_id)
  );
  CREATE INDEX messages_open ON messages (state) WHERE state IN ('accepted', 'queued', 'running', ` +
    `'steering', 'deferred');
  CREATE INDEX messages_conversation ON messages (conversation_id, seq);
  CREATE TABLE outbox (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    conversation_id TEXT NOT NULL,
    kind TEXT NOT NULL,                -- reply | notice
    message_ids TEXT NOT NULL,         -- JSON array: the inputs this answers
    reply_to TEXT,                     -- platform message id to reply to
    text TEXT NOT NULL,
    from_fallback INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    delivered_at INTEGER,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
  );
  CREATE INDEX outbox_owed ON outbox (conversation_id, seq) WHERE delivered_at IS NULL;
  CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation_id TEXT NOT NULL,
    type TEXT NOT NULL,
    message_id TEXT,
    outbox_id TEXT UNIQUE,             -- a delivered reply appears once, whatever retries happen
    data TEXT NOT NULL,
    created_at INTEGER NOT NULL
  );
  CREATE INDEX events_conversation ON events (conversation_id, seq);
  CREATE TABLE turns (
    id TEXT PRIMARY KEY,
    conversation_id TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    outcome TEXT,
    steered INTEGER NOT NULL DEFAULT 0,
    input_ids TEXT NOT NULL,
    session_id TEXT,
    error TEXT
  );
  CREATE TABLE agent_processes (
    pid INTEGER PRIMARY KEY,           -- also the process group id
    conversation_id TEXT NOT NULL,
    started_at INTEGER NOT NULL
  );
  `,
  `
  -- The steps of each turn (text blocks, tool calls, steers, permission requests, notices): what
  -- the web timeline, chat progress and the history API show. data is the step as JSON.
  CREATE TABLE steps (
    turn_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    conversation_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    at INTEGER NOT NULL,
    PRIMARY KEY (turn_id, idx)
  );
  CREATE INDEX turns_conversation ON turns (conversation_id, started_at);
  `,
  `
  ALTER TABLE conversations ADD COLUMN project TEXT;   -- the project it works in (null: not chosen yet)
  CREATE TABLE conversation_projects (
    conversation_id TEXT NOT NULL,
    project TEXT NOT NULL,
    session_id TEXT,                   -- the agent session it last had in this project
    worktree TEXT,                     -- its own git worktree there (projects with worktrees)
    branch TEXT,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (conversation_id, project)
  );
  CREATE INDEX conversation_projects_session ON conversation_projects (session_id);
  `,
  `
  -- The web app's conversation list (archived, what was read) and its paged history: acks by
  -- message, replies and turns by time.
  ALTER TABLE conversations ADD COLUMN archived_at INTEGER;
  ALTER TABLE conversations ADD COLUMN last_read_seq INTEGER NOT NULL DEFAULT 0;
  CREATE INDEX events_ack ON events (message_id) WHERE type = 'ack';
  CREATE INDEX outbox_conversation ON outbox (conversation_id, created_at);
  `,
  // The tool calls each turn started (name and a short input), recorded as they start: a turn cut
  // off by a crash or a restart is run again with them named, so the agent checks before repeating.
  `
  ALTER TABLE turns ADD COLUMN tools TEXT;
  `,
  // Why a deferred message is held, as data (message-states.ts HELD_FOR); rows held before this
  // migration are read from the reason they were given then.
  `
  ALTER TABLE messages ADD COLUMN held_for TEXT;
  UPDATE messages SET held_for = CASE
      WHEN reason = 'rate limited (reset time estimated)' THEN 'rate-limit-estimated'
      WHEN reason LIKE 'rate limited%' THEN 'rate-limit'
      ELSE 'agent-terminal' END
    WHERE state = 'deferred';
  `,
  // Web Push: the devices that asked for notifications (the endpoint is a capability URL of the
  // browser's push service; p256dh and auth encrypt to it), and the conversations muted for all.
  `
  CREATE TABLE push_subscriptions (
    id TEXT PRIMARY KEY,               -- a hash of the endpoint: the page and the action tokens name it
    endpoint TEXT NOT NULL UNIQUE,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_sent_at INTEGER
  );
  CREATE TABLE push_mutes (
    conversation_id TEXT PRIMARY KEY,
    muted_at INTEGER NOT NULL
  );
  `,
  // What each turn cost: its tokens, its cost in USD (NULL: the backend reports none, e.g. Codex),
  // per model, and the agent's own time; the project it ran in, so a project's spending per day is one query.
  // A per-day budget raised with /budget is kept per project and local day.
  `
  ALTER TABLE turns ADD COLUMN project TEXT;
  ALTER TABLE turns ADD COLUMN input_tokens INTEGER;
  ALTER TABLE turns ADD COLUMN output_tokens INTEGER;
  ALTER TABLE turns ADD COLUMN cache_read_tokens INTEGER;
  ALTER TABLE turns ADD COLUMN cache_creation_tokens INTEGER;
  ALTER TABLE turns ADD COLUMN cost_usd REAL;
  ALTER TABLE turns ADD COLUMN model_usage TEXT;
  ALTER TABLE turns ADD COLUMN duration_ms INTEGER;
  CREATE INDEX turns_ended ON turns (ended_at);
  CREATE TABLE budget_days (
    project TEXT NOT NULL,
    day TEXT NOT NULL,                 -- the local day, YYYY-MM-DD
    daily_usd REAL NOT NULL,
    set_by TEXT,
    set_at INTEGER NOT NULL,
    PRIMARY KEY (project, day)
  );
  `,
  // Jobs: messages from a schedule (a clock) or a webhook. A slot is stored before it runs, unique per schedule and
  // slot, in the transaction of its message (the message's own state says how a run that got one ended); schedules
  // made from a chat or the page, and pauses; webhook deliveries seen (unique per hook and key: a replay finds its
  // row), kept until forget_at; the pull requests each conversation opened, for GitHub's events about them.
  `
  CREATE TABLE schedule_firings (
    schedule TEXT NOT NULL,
    slot_ms INTEGER NOT NULL,
    state TEXT NOT NULL,               -- running | quiet | skipped | missed | timed_out
    missed_count INTEGER,              -- missed: how many slots this row stands for (the newest is slot_ms)
    message_id TEXT,                   -- running, quiet, timed_out: the run's message
    conversation_id TEXT,              -- where it ran (or would have)
    started_at INTEGER NOT NULL,
    ended_at INTEGER,
    PRIMARY KEY (schedule, slot_ms)
  );
  CREATE INDEX schedule_firings_message ON schedule_firings (message_id) WHERE message_id IS NOT NULL;
  CREATE INDEX schedule_firings_conversation ON schedule_firings (conversation_id);
  CREATE TABLE kept_schedules (
    name TEXT PRIMARY KEY,
    definition TEXT NOT NULL,          -- JSON in the config's shape (schedules.<name>)
    created_by TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE schedule_pauses (
    name TEXT PRIMARY KEY,             -- a schedule of the config or a kept one
    paused_by TEXT,
    paused_at INTEGER NOT NULL
  );
  CREATE TABLE hook_deliveries (
    hook TEXT NOT NULL,
    key TEXT NOT NULL,                 -- github:<X-GitHub-Delivery> | id:<X-Rudder-Delivery> | sig:<t>.<digest>
    seen_at INTEGER NOT NULL,
    forget_at INTEGER NOT NULL,
    message_id TEXT,                   -- the message it became (none: ignored or dropped)
    outcome TEXT,                      -- why none: the shepherd's reason
    PRIMARY KEY (hook, key)
  );
  CREATE INDEX hook_deliveries_forget ON hook_deliveries (forget_at);
  CREATE TABLE pr_owners (
    project TEXT NOT NULL,
    repository TEXT NOT NULL,          -- owner/name
    pr INTEGER NOT NULL,
    branch TEXT NOT NULL,
    conversation_id TEXT NOT NULL,
    opened_at INTEGER NOT NULL,
    PRIMARY KEY (project, repository, pr)
  );
  `,
  // What a conversation's agent runs in when not its project's backend: a person's tmux pane it is
  // attached to, or one it let go of (kept while the pane may still hold the session): store/attachments.ts.
  `
  CREATE TABLE attachments (
    conversation_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,                -- pane | detached
    socket TEXT,                       -- the tmux server's socket path
    pane_id TEXT,                      -- tmux's id of the pane (%12)
    label TEXT,                        -- session:window.pane, as the person knows it
    pid INTEGER,                       -- the claude process in the pane
    proc_start TEXT,                   -- its start time: with the pid, one process
    config_dir TEXT,
    cwd TEXT,
    session_id TEXT,
    at INTEGER NOT NULL
  );
  `,
  // Since when each schedule's time has been kept with its present line (cron and zone): a slot that came due while
  // Rudder was down is caught up from here when none of its slots is stored yet (or the line changed after one was).
  `
  CREATE TABLE schedule_watch (
    schedule TEXT PRIMARY KEY,
    line TEXT NOT NULL,                -- the cron line and time zone the time is kept with
    since INTEGER NOT NULL
  );
  `,
];
