#!/bin/sh
# A minimal stand-in for the claude CLI, for the memory benchmark's 10,000 turns: it answers each
# message at once, as one process per turn (`-p ... -- PROMPT`) or over stream-json (a uuid'd user
# message per line), and starts in about a millisecond (the node fake in tests/support takes tens
# of milliseconds of CPU per start, which would make 10,000 turns take many minutes on 2 cores).
# Its own session id per new session, as the real CLI; --resume keeps the one it is given.
# With FAKE_CLAUDE_TAP set, it appends the time (ns) each message reached it to that file (the schedules bench).
read -r sid < /proc/sys/kernel/random/uuid
prev=''
for a in "$@"; do
  [ "$prev" = --resume ] && sid=$a
  prev=$a
done
answer() {
  printf '%s\n' '{"type":"system","subtype":"init","session_id":"'$sid'","model":"fake","cwd":"/","tools":[]}'
  printf '%s\n' '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"echo"}]}}'
  u=''
  [ -n "$1" ] && u=',"user_message_uuid":"'$1'","user_message_uuids":["'$1'"]'
  r='{"type":"result","subtype":"success","is_error":false,"result":"echo","session_id":"'$sid'","num_turns":1,'
  r=$r'"duration_ms":1,"total_cost_usd":0.001,"usage":{"input_tokens":1,"output_tokens":1},'
  r=$r'"terminal_reason":"completed"'
  printf '%s\n' "$r$u}"
}
case " $* " in
  *" --version "*) echo '2.1.332 (Claude Code)' ;;
  *" --input-format "*)
    while IFS= read -r line; do
      case "$line" in *'"type":"user"'*) ;; *) continue ;; esac
      # The uuid is the frame's last field (agents/claude/protocol/input.ts userMessage).
      uuid=${line##*\"uuid\":\"}
      uuid=${uuid%%\"*}
      [ -n "$FAKE_CLAUDE_TAP" ] && date +%s%N >> "$FAKE_CLAUDE_TAP"
      printf '%s\n' '{"type":"command_lifecycle","command_uuid":"'"$uuid"'","state":"started"}'
      answer "$uuid"
    done ;;
  *)
    [ -n "$FAKE_CLAUDE_TAP" ] && date +%s%N >> "$FAKE_CLAUDE_TAP"
    answer '' ;;
esac
