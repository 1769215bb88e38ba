/**
 * Codex's approval requests (server → client JSON-RPC requests) as Rudder permission requests,
 * and the person's option back as Codex's decision. The options are what codex offers
 * (`availableDecisions`), with two rules of Rudder's: a Deny (decline) is always offered, even
 * when codex does not list it (0.171 takes it), and `cancel` is shown as stopping the turn. The
 * first "allow" option has the id `allow` and the refusal `deny`, so /allow, /deny and the buttons
 * work as with Claude. Options that change later prompts carry their effect.
 * A request is answered once; serverRequest/resolved (codex withdrew it, or the turn ended) or the
 * turn's end forgets it. Server requests Rudder cannot put to a person are answered at once
 * (declined), since one left unanswered would stall the turn.
 */
import type { PermissionAnswer, PermissionOption, PermissionRequest } from '../../session.js';
import { type CommandApprovalParams, type RequestId, RPC_ERRORS, type v2 } from '../protocol/index.js';
import type { AppServer } from '../server/app-server.js';
import type { CodexTurn } from './codex-turn.js';
import { unwrapShell } from './tool-inputs.js';

type Decision = unknown;

interface Pending {
  server: AppServer;
  rpcId: RequestId;
  turn: CodexTurn;
  /** Option id → the result sent to codex. */
  answers: Map<string, Decision>;
  /** Option ids that stop the turn (cancel). */
  stops: Set<string>;
}

interface Offer {
  option: PermissionOption;
  result: Decision;
  stops?: boolean;
}

const ALLOW: PermissionOption = { id: 'allow', label: 'Allow' };
const DENY: PermissionOption = { id: 'deny', label: 'Deny' };
const CANCEL: PermissionOption = {
  id: 'cancel',
  label: 'Deny and stop the turn',
  effect: 'stops the whole turn, not only this step',
};

function commandOffers(p: CommandApprovalParams): Offer[] {
  const available: v2.CommandExecutionApprovalDecision[] = p.availableDecisions?.length
    ? p.availableDecisions
    : [
        'accept',
        'acceptForSession',
        ...(p.proposedExecpolicyAmendment
          ? [{ acceptWithExecpolicyAmendment: { execpolicy_amendment: p.proposedExecpolicyAmendment } }]
          : []),
        'decline',
        'cancel',
      ];
  const offers: Offer[] = [];
  let network = 0;
  for (const d of available) {
    if (d === 'accept') offers.push({ option: ALLOW, result: { decision: d } });
    else if (d === 'acceptForSession')
      offers.push({
        option: {
          id: 'allow-session',
          label: 'Allow for this conversation',
          effect: 'Codex no longer asks about this command in this conversation',
        },
        result: { decision: d },
      });
    else if (d === 'decline') offers.push({ option: DENY, result: { decision: d } });
    else if (d === 'cancel') offers.push({ option: CANCEL, result: { decision: d }, stops: true });
    else if ('acceptWithExecpolicyAmendment' in d) {
      const prefix = d.acceptWithExecpolicyAmendment.execpolicy_amendment.map((t) => unwrapShell(t)).join(' ');
      offers.push({
        option: {
          id: 'allow-prefix',
          label: `Allow, and always allow commands starting with \`${prefix.slice(0, 120)}\``,
          effect: 'Codex saves a rule in its command policy (CODEX_HOME): matching commands run without asking',
        },
        result: { decision: d },
      });
    } else if ('applyNetworkPolicyAmendment' in d) {
      const a = d.applyNetworkPolicyAmendment.network_policy_amendment;
      offers.push({
        option: {
          id: `network-${network++}`,
          label: a.action === 'allow' ? `Allow network access to ${a.host}` : `Block network access to ${a.host}`,
          effect: `Codex remembers this for later requests to ${a.host}`,
        },
        result: { decision: d },
      });
    }
  }
  return withDeny(offers, { decision: 'decline' });
}

/** Deny is always there, before the option that stops the turn. */
function withDeny(offers: Offer[], deny: Decision): Offer[] {
  if (offers.some((o) => o.option.id === 'deny')) return offers;
  const at = offers.findIndex((o) => o.stops);
  const denyOffer = { option: DENY, result: deny };
  return at < 0 ? [...offers, denyOffer] : [...offers.slice(0, at), denyOffer, ...offers.slice(at)];
}

function fileChangeOffers(p: v2.FileChangeRequestApprovalParams): Offer[] {
  return withDeny(
    [
      { option: ALLOW, result: { decision: 'accept' } },
      {
        option: {
          id: 'allow-session',
          label: p.grantRoot ? `Allow, and allow writes under ${p.grantRoot}` : 'Allow for this conversation',
          effect: p.grantRoot
            ? `Codex no longer asks about writes under ${p.grantRoot} in this conversation`
            : 'Codex no longer asks about file changes in this conversation',
        },
        result: { decision: 'acceptForSession' },
      },
      { option: DENY, result: { decision: 'decline' } },
      { option: CANCEL, result: { decision: 'cancel' }, stops: true },
    ],
    { decision: 'decline' },
  );
}

function permissionsOffers(p: v2.PermissionsRequestApprovalParams): Offer[] {
  return [
    { option: ALLOW, result: { permissions: p.permissions, scope: 'turn' } },
    {
      option: {
        id: 'allow-session',
        label: 'Allow for this conversation',
        effect: 'Codex keeps these permissions for the rest of the conversation',
      },
      result: { permissions: p.permissions, scope: 'session' },
    },
    { option: DENY, result: { permissions: {}, scope: 'turn' } },
  ];
}

/** Codex's approval requests waiting for the person's answer, each with what every option sends back. */
export class PendingApprovals {
  private readonly pending = new Map<string, Pending>();

  /** Handles a server request of a turn; returns the permission event to emit, if it is one for the person. */
  open(server: AppServer, rpcId: RequestId, method: string, params: unknown, turn: CodexTurn | undefined): void {
    const put = (
      toolName: string,
      input: Record<string, unknown>,
      description: string | undefined,
      offers: Offer[],
    ) => {
      if (!turn)
        return void server.respondError(rpcId, RPC_ERRORS.invalidRequest, 'No turn of this conversation is running');
      const requestId = `${server.pid}:${rpcId}`;
      this.pending.set(requestId, {
        server,
        rpcId,
        turn,
        answers: new Map(offers.map((o) => [o.option.id, o.result])),
        stops: new Set(offers.filter((o) => o.stops).map((o) => o.option.id)),
      });
      const request: PermissionRequest = {
        requestId,
        toolName,
        input,
        ...(description ? { description } : {}),
        options: offers.map((o) => o.option),
      };
      turn.emit({ type: 'permission', request });
    };
    switch (method) {
      case 'item/commandExecution/requestApproval': {
        const p = params as CommandApprovalParams;
        const input = p.command
          ? { command: unwrapShell(p.command), cwd: p.cwd ?? undefined }
          : { network: p.networkApprovalContext ?? null };
        put('Bash', input, p.reason ?? undefined, commandOffers(p));
        return;
      }
      case 'item/fileChange/requestApproval': {
        const p = params as v2.FileChangeRequestApprovalParams;
        const changes = turn?.items.fileChanges(p.itemId) ?? [];
        const input = {
          file_path: changes.map((c) => c.path).join(', ') || p.grantRoot || '(unknown file)',
          diff: changes.map((c) => `${c.path}\n${c.diff}`).join('\n'),
          ...(p.grantRoot ? { grantRoot: p.grantRoot } : {}),
        };
        put('Edit', input, p.reason ?? undefined, fileChangeOffers(p));
        return;
      }
      case 'item/permissions/requestApproval': {
        const p = params as v2.PermissionsRequestApprovalParams;
        put('Permissions', { permissions: p.permissions }, p.reason ?? undefined, permissionsOffers(p));
        return;
      }
      case 'mcpServer/elicitation/request':
        // A form Rudder cannot show: declined, so the tool call goes on without it.
        server.respond(rpcId, { action: 'decline', content: null });
        return;
      default:
        server.respondError(rpcId, RPC_ERRORS.methodNotFound, `Rudder does not handle ${method}`);
    }
  }

  /** Sends the person's choice; false when the request is unknown, already answered, or codex is gone. */
  answer(requestId: string, answer: PermissionAnswer): boolean {
    const p = this.pending.get(requestId);
    if (!p) return false;
    const result = p.answers.get(answer.optionId);
    if (result === undefined) return false;
    this.pending.delete(requestId);
    if (p.stops.has(answer.optionId)) p.turn.interruptRequested = true;
    return p.server.respond(p.rpcId, result);
  }

  /** Codex resolved a request itself (serverRequest/resolved): it can no longer be answered. */
  resolved(server: AppServer, rpcId: RequestId): void {
    const requestId = `${server.pid}:${rpcId}`;
    const p = this.pending.get(requestId);
    if (!p) return;
    this.pending.delete(requestId);
    p.turn.emit({ type: 'status', message: 'Codex withdrew its permission request before it was answered.' });
  }

  /** Forgets the requests of a turn that ended (all of them with undefined). */
  dropFor(turn: CodexTurn | undefined): void {
    for (const [id, p] of this.pending) if (turn === undefined || p.turn === turn) this.pending.delete(id);
  }
}
