/**
 * The web page: one self-contained HTML document (no build step, no external requests).
 * It lists conversations, opens or creates one, streams replies over SSE, shows the
 * acknowledgement markers, relays permission requests (Approve/Deny) and has a Stop button.
 * All text is inserted with textContent, never as HTML. Its inline script and style carry the
 * response's CSP nonce; nothing else inline runs.
 */
export function pageHtml(nonce: string): string {
  return PAGE_HTML.replaceAll('__CSP_NONCE__', nonce);
}

const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Rudder</title>
<style nonce="__CSP_NONCE__">
  :root { --bg:#0f1115; --panel:#171a21; --line:#262b36; --text:#e6e8ee; --dim:#8b93a7; --me:#1f3a5f; --agent:#1d2430; --accent:#5aa9ff; --warn:#f0b44c; --bad:#ff6b6b; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.45 system-ui, sans-serif; background:var(--bg); color:var(--text); display:flex; height:100vh; }
  aside { width:240px; background:var(--panel); border-right:1px solid var(--line); display:flex; flex-direction:column; }
  aside header { padding:12px; font-weight:600; display:flex; justify-content:space-between; align-items:center; }
  aside ul { list-style:none; margin:0; padding:0; overflow:auto; flex:1; }
  aside li { padding:8px 12px; cursor:pointer; border-top:1px solid var(--line); white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
  aside li.active { background:var(--agent); }
  main { flex:1; display:flex; flex-direction:column; min-width:0; }
  #top { padding:10px 14px; border-bottom:1px solid var(--line); display:flex; gap:12px; align-items:center; }
  #title { font-weight:600; }
  #status { color:var(--dim); font-size:12px; flex:1; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }
  #log { flex:1; overflow:auto; padding:14px; display:flex; flex-direction:column; gap:8px; }
  .msg { max-width:80%; padding:8px 11px; border-radius:10px; white-space:pre-wrap; word-wrap:break-word; }
  .me { align-self:flex-end; background:var(--me); }
  .agent { align-self:flex-start; background:var(--agent); }
  .agent.streaming { opacity:.8; border:1px dashed var(--line); }
  .notice { align-self:center; color:var(--dim); font-size:12px; max-width:90%; white-space:pre-wrap; }
  .error { align-self:center; color:var(--bad); font-size:12px; }
  .acks { font-size:12px; margin-left:6px; }
  .fallback { border-left:3px solid var(--warn); }
  .perm { align-self:stretch; border:1px solid var(--warn); border-radius:10px; padding:10px; background:#241f12; }
  .perm pre { white-space:pre-wrap; margin:6px 0; color:var(--dim); }
  .choice { display:flex; gap:8px; margin-top:6px; }
  form { display:flex; gap:8px; padding:10px; border-top:1px solid var(--line); }
  textarea { flex:1; resize:none; height:56px; background:var(--panel); color:var(--text); border:1px solid var(--line); border-radius:8px; padding:8px; font:inherit; }
  button { background:var(--accent); color:#06101f; border:0; border-radius:8px; padding:8px 14px; font-weight:600; cursor:pointer; }
  button.secondary { background:var(--line); color:var(--text); }
  button.stop { background:var(--bad); color:#fff; }
  #pairing { padding:10px 12px; border-top:1px solid var(--line); color:var(--dim); font-size:12px; }
  #pairing img { width:100%; background:#fff; border-radius:6px; margin-top:6px; }
</style>
</head>
<body>
<aside>
  <header><span>Rudder</span><button class="secondary" id="new" data-testid="new-conversation">New</button></header>
  <ul id="convs" data-testid="conversations"></ul>
  <div id="pairing" data-testid="pairing" hidden></div>
</aside>
<main>
  <div id="top"><span id="title">No conversation</span><span id="status" data-testid="status"></span><button class="stop" id="stop" data-testid="stop">Stop</button></div>
  <div id="log" data-testid="log"></div>
  <form id="send"><textarea id="text" data-testid="input" placeholder="Message the agent. Enter sends, Shift+Enter for a new line."></textarea><button data-testid="send">Send</button></form>
</main>
<script nonce="__CSP_NONCE__">
(function () {
  var hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('token')) { localStorage.setItem('rudder-token', hash.get('token')); history.replaceState(null, '', location.pathname); }
  var token = localStorage.getItem('rudder-token') || '';
  var current = null, source = null, lastEventId = 0;
  var streaming = {};
  // Acks can arrive over SSE before the POST that sent the message has returned its id.
  var earlyAcks = {};
  var $ = function (id) { return document.getElementById(id); };
  function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
  function api(method, path, body) {
    return fetch(path, { method: method, headers: { 'authorization': 'Bearer ' + token, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })
      .then(function (r) { return r.json().then(function (j) { if (!r.ok) throw new Error((j.error && j.error.message) || r.status); return j; }); });
  }
  function status(text) { $('status').textContent = text || ''; }
  function scroll() { var l = $('log'); l.scrollTop = l.scrollHeight; }
  function add(node) { $('log').appendChild(node); scroll(); return node; }
  function userBubble(id, text) {
    var b = el('div', 'msg me'); b.dataset.id = id || ''; b.setAttribute('data-testid', 'user-message');
    b.appendChild(document.createTextNode(text)); var a = el('span', 'acks'); a.setAttribute('data-testid', 'acks'); b.appendChild(a); return add(b);
  }
  function showAck(b, d) { var a = b.querySelector('.acks'); if (a.textContent.indexOf(d.emoji) < 0) a.textContent += ' ' + d.emoji; b.title = d.note || ''; }
  function bubbleFor(id) { return id ? document.querySelector('.me[data-id="' + CSS.escape(id) + '"]') : null; }
  function loadConversations() {
    return api('GET', '/api/conversations').then(function (j) {
      var ul = $('convs'); ul.textContent = '';
      j.conversations.forEach(function (c) {
        var li = el('li', c.id === current ? 'active' : '', c.title || c.id); li.onclick = function () { open(c.id); }; ul.appendChild(li);
      });
      return j.conversations;
    });
  }
  function open(id) {
    current = id; $('title').textContent = id; $('log').textContent = ''; streaming = {};
    if (source) source.close();
    loadConversations();
    api('GET', '/api/conversations/' + encodeURIComponent(id) + '/messages').then(function (j) {
      var replies = {};
      j.replies.forEach(function (r) { var k = r.messageIds[0] || ''; (replies[k] = replies[k] || []).push(r); });
      j.messages.forEach(function (m) {
        userBubble(m.id, m.text);
        (replies[m.id] || []).forEach(showReply);
      });
      lastEventId = j.lastEventId; connect();
    }).catch(function (e) { add(el('div', 'error', String(e.message || e))); });
  }
  function showReply(r) {
    var b = el('div', (r.kind === 'notice' ? 'notice' : 'msg agent') + (r.fromFallback ? ' fallback' : ''), r.text);
    b.setAttribute('data-testid', r.kind === 'notice' ? 'notice' : 'reply'); add(b);
  }
  function connect() {
    var url = '/api/conversations/' + encodeURIComponent(current) + '/events?token=' + encodeURIComponent(token) + '&lastEventId=' + lastEventId;
    source = new EventSource(url);
    function on(type, fn) { source.addEventListener(type, function (ev) { if (ev.lastEventId) lastEventId = Number(ev.lastEventId); fn(JSON.parse(ev.data)); }); }
    on('ack', function (d) { var b = bubbleFor(d.messageId); if (b) showAck(b, d); else (earlyAcks[d.messageId] = earlyAcks[d.messageId] || []).push(d); if (d.kind === 'queued' && d.note) status('⏳ ' + d.note); });
    on('text', function (d) {
      var b = streaming[d.turnId]; if (!b) { b = streaming[d.turnId] = add(el('div', 'msg agent streaming', '')); b.setAttribute('data-testid', 'streaming'); }
      b.textContent += d.delta; scroll();
    });
    on('reply', function (d) {
      Object.keys(streaming).forEach(function (k) { streaming[k].remove(); }); streaming = {};
      showReply({ kind: d.kind, text: d.text, fromFallback: d.fromFallback }); status('');
    });
    on('permission', function (d) {
      if (d.resolved) { var card = document.querySelector('.perm[data-request="' + CSS.escape(d.requestId) + '"]'); if (card) card.querySelector('.choice').textContent = 'Answered: ' + d.resolved; return; }
      var p = el('div', 'perm'); p.dataset.request = d.requestId; p.setAttribute('data-testid', 'permission');
      p.appendChild(el('div', '', '🔐 The agent asks to use ' + d.toolName + (d.description ? ': ' + d.description : '')));
      p.appendChild(el('pre', '', JSON.stringify(d.input, null, 2)));
      var row = el('div', 'choice');
      (d.options || [{ id: 'allow', label: 'Allow' }, { id: 'deny', label: 'Deny' }]).forEach(function (o) {
        var btn = el('button', o.id === 'allow' ? '' : 'secondary', o.id === 'allow' ? 'Approve' : o.id === 'deny' ? 'Deny' : o.label);
        btn.setAttribute('data-testid', 'permission-' + o.id);
        btn.onclick = function () { api('POST', '/api/conversations/' + encodeURIComponent(current) + '/permissions/' + encodeURIComponent(d.requestId), { allow: o.id === 'allow', optionId: o.id === 'allow' || o.id === 'deny' ? undefined : o.id }).catch(function (e) { add(el('div', 'error', e.message)); }); };
        row.appendChild(btn);
      });
      p.appendChild(row); add(p);
    });
    on('error', function (d) { if (d.code) add(el('div', 'error', d.code + ': ' + d.message)); });
    on('status', function (d) {
      if (d.state === 'tool') status('running ' + d.tool + (d.input ? ': ' + d.input : ''));
      else if (d.state === 'turn-started') status('working…');
      else if (d.state === 'steer-absorbed') status('your message reached the running turn');
    });
  }
  function send(text) {
    if (!current || !text.trim()) return;
    var b = userBubble('', text);
    api('POST', '/api/conversations/' + encodeURIComponent(current) + '/messages', { text: text })
      .then(function (j) { b.dataset.id = j.messageId; (earlyAcks[j.messageId] || []).forEach(function (d) { showAck(b, d); }); delete earlyAcks[j.messageId]; })
      .catch(function (e) { add(el('div', 'error', e.message)); });
  }
  function pollChannels() {
    api('GET', '/api/channels').then(function (j) {
      var box = $('pairing'); box.textContent = ''; box.hidden = true;
      j.channels.forEach(function (c) {
        if (!c.qrSvg) return;
        box.hidden = false; box.appendChild(el('div', '', 'Link ' + c.name + ': scan this code in the app (Linked devices).'));
        var img = el('img'); img.alt = c.name + ' pairing code'; img.src = 'data:image/svg+xml;base64,' + btoa(c.qrSvg); box.appendChild(img);
      });
    }).catch(function () {});
  }
  $('send').onsubmit = function (e) { e.preventDefault(); var t = $('text'); send(t.value); t.value = ''; };
  $('text').onkeydown = function (e) { if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); $('send').requestSubmit(); } };
  $('stop').onclick = function () { send('/stop'); };
  $('new').onclick = function () { api('POST', '/api/conversations', {}).then(function (j) { open(j.id); }); };
  if (!token) { $('log').appendChild(el('div', 'notice', 'Open the address Rudder printed at startup (it carries the access token).')); return; }
  pollChannels(); setInterval(pollChannels, 3000);
  loadConversations().then(function (list) { if (list.length) open(list[0].id); else $('new').onclick(); })
    .catch(function (e) { add(el('div', 'error', 'Could not reach the gateway: ' + e.message)); });
})();
</script>
</body>
</html>
`;
