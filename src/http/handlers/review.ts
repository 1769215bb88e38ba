/**
 * The review of a web conversation's work (its worktree; read-only, a project without worktrees):
 *   GET  /api/conversations/:id/changes                      ChangesBody
 *   GET  /api/conversations/:id/changes/file?section=&path=&oldPath=   FileDiff (a collapsed file, whole)
 *   POST /api/conversations/:id/changes/comments             {comments, clientMessageId?} -> 202 SendResult
 *   POST /api/conversations/:id/changes/propose-commit       {} -> 202 SendResult (asks the agent for a message)
 *   POST /api/conversations/:id/changes/commit               {message} -> CommitResult
 *   POST /api/conversations/:id/changes/merge                {} -> MergeResult (kind "conflict": stopped, named)
 *   POST /api/conversations/:id/changes/resolve-conflict     {files, clientMessageId?} -> 202 SendResult
 *   POST /api/conversations/:id/changes/push                 {which?} -> PushResult
 *   GET  /api/conversations/:id/changes/pull-request         PullRequestAvailability
 *   POST /api/conversations/:id/changes/pull-request         {title?, body?, draft?} -> PullRequestResult
 *   GET  /api/conversations/:id/changes/discard              DiscardPreview (ignored files included, a token)
 *   POST /api/conversations/:id/changes/discard              {confirm: token} -> DiscardResult
 * Refusals carry their REVIEW_* code with its fixed status (409 while a turn runs there, and so on).
 */

import { SECTIONS } from '../../projects/changes/types.js';
import { type Body, MAX_TEXT_BODY, messageText, only, readJsonObject } from '../body.js';
import { HttpError } from '../errors.js';
import { ok, type Route, type RouteContext } from '../route.js';
import type {
  ChangesBody,
  CommitResult,
  DiscardPreview,
  DiscardResult,
  FileDiff,
  LineCommentBody,
  MergeResult,
  PullRequestAvailability,
  PullRequestResult,
  PushResult,
  Section,
  SendResult,
} from '../wire.js';

const MAX_COMMENTS = 100;
const MAX_CONFLICT_FILES = 200;
const MAX_PATH = 4096;
const SMALL_BODY = 64 * 1024;

/** The conversation must exist: a review of one nobody created is a 404, not a guess at its project. */
function known({ api, params }: RouteContext): string {
  if (!api.conversation(params.id!)) throw new HttpError('NOT_FOUND', `No conversation "${params.id}".`);
  return params.id!;
}

const bad = (message: string) => new HttpError('BAD_REQUEST', message);

function str(v: unknown, name: string, max: number, optional = false): string | undefined {
  if (v === undefined && optional) return undefined;
  if (typeof v !== 'string' || !v || v.length > max) throw bad(`"${name}" must be a string of 1-${max} characters.`);
  return v;
}

function lineNumber(v: unknown, name: string): number {
  if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > 10_000_000)
    throw bad(`"${name}" must be a line number (a whole number from 1).`);
  return v as number;
}

function section(v: unknown, name = 'section'): Section {
  if (!SECTIONS.includes(v as Section)) throw bad(`"${name}" must be one of ${SECTIONS.join(', ')}.`);
  return v as Section;
}

function comment(v: unknown, i: number): LineCommentBody {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad(`comments[${i}] must be an object.`);
  const c = v as Body;
  only(c, ['path', 'oldPath', 'section', 'side', 'line', 'endLine', 'text']);
  if (c.side !== 'new' && c.side !== 'old') throw bad(`comments[${i}].side must be "new" or "old".`);
  const text = messageText(c);
  const oldPath = str(c.oldPath, `comments[${i}].oldPath`, MAX_PATH, true);
  return {
    path: str(c.path, `comments[${i}].path`, MAX_PATH)!,
    ...(oldPath ? { oldPath } : {}),
    section: section(c.section, `comments[${i}].section`),
    side: c.side,
    line: lineNumber(c.line, `comments[${i}].line`),
    ...(c.endLine !== undefined ? { endLine: lineNumber(c.endLine, `comments[${i}].endLine`) } : {}),
    text,
  };
}

async function comments(ctx: RouteContext) {
  const id = known(ctx);
  const body = await readJsonObject(ctx.req, MAX_TEXT_BODY);
  only(body, ['comments', 'clientMessageId']);
  const list = body.comments;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_COMMENTS)
    throw bad(`"comments" must be a list of 1-${MAX_COMMENTS} comments.`);
  const cm = str(body.clientMessageId, 'clientMessageId', 200, true);
  return ok((await ctx.api.sendComments(id, list.map(comment), cm)) satisfies SendResult, 202);
}

/** Asks the agent to resolve a merge's conflict in the files the merge named (a message through intake). */
async function resolveConflict(ctx: RouteContext) {
  const id = known(ctx);
  const body = await smallBody(ctx, ['files', 'clientMessageId']);
  const list = body.files;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_CONFLICT_FILES)
    throw bad(`"files" must be a list of 1-${MAX_CONFLICT_FILES} paths: the files the merge named.`);
  const files = list.map((f, i) => str(f, `files[${i}]`, MAX_PATH)!);
  const cm = str(body.clientMessageId, 'clientMessageId', 200, true);
  return ok((await ctx.api.askToResolve(id, files, cm)) satisfies SendResult, 202);
}

async function smallBody(ctx: RouteContext, allowed: string[]): Promise<Body> {
  const body = await readJsonObject(ctx.req, SMALL_BODY);
  only(body, allowed);
  return body;
}

async function commit(ctx: RouteContext) {
  const id = known(ctx);
  const body = await smallBody(ctx, ['message']);
  if (typeof body.message !== 'string') throw bad('"message" is required: the commit message.');
  if (body.message.length > 20_000) throw bad('"message" is longer than 20,000 characters.');
  return ok((await ctx.api.commit(id, body.message)) satisfies CommitResult);
}

async function push(ctx: RouteContext) {
  const id = known(ctx);
  const body = await smallBody(ctx, ['which']);
  if (body.which !== undefined && body.which !== 'branch' && body.which !== 'base')
    throw bad('"which" must be "branch" (the default) or "base".');
  return ok((await ctx.api.pushChanges(id, body.which ?? 'branch')) satisfies PushResult);
}

async function pullRequest(ctx: RouteContext) {
  const id = known(ctx);
  const body = await smallBody(ctx, ['title', 'body', 'draft']);
  if (body.draft !== undefined && typeof body.draft !== 'boolean') throw bad('"draft" must be true or false.');
  const o = {
    title: str(body.title, 'title', 300, true),
    body: str(body.body, 'body', 60_000, true),
    draft: body.draft as boolean | undefined,
  };
  return ok((await ctx.api.openPullRequest(id, o)) satisfies PullRequestResult);
}

async function discard(ctx: RouteContext) {
  const id = known(ctx);
  const body = await smallBody(ctx, ['confirm']);
  if (typeof body.confirm !== 'string' || !/^[0-9a-f]{16}$/.test(body.confirm))
    throw bad('"confirm" is required: the token GET …/changes/discard gave with the list of files.');
  return ok((await ctx.api.discard(id, body.confirm)) satisfies DiscardResult);
}

const base = '/api/conversations/:id/changes';

export const reviewRoutes: Route[] = [
  { method: 'GET', path: base, handler: async (ctx) => ok((await ctx.api.changes(known(ctx))) satisfies ChangesBody) },
  {
    method: 'GET',
    path: `${base}/file`,
    handler: async (ctx) => {
      const id = known(ctx);
      const q = ctx.query;
      const oldPath = q.get('oldPath') ?? undefined;
      const ref = {
        section: section(q.get('section') ?? undefined),
        path: str(q.get('path') ?? undefined, 'path', MAX_PATH)!,
        ...(oldPath ? { oldPath: str(oldPath, 'oldPath', MAX_PATH)! } : {}),
      };
      return ok((await ctx.api.fileDiff(id, ref)) satisfies FileDiff);
    },
  },
  { method: 'POST', path: `${base}/comments`, handler: comments },
  {
    method: 'POST',
    path: `${base}/propose-commit`,
    handler: async (ctx) => {
      const id = known(ctx);
      await smallBody(ctx, []);
      return ok((await ctx.api.proposeCommit(id)) satisfies SendResult, 202);
    },
  },
  { method: 'POST', path: `${base}/commit`, handler: commit },
  {
    method: 'POST',
    path: `${base}/merge`,
    handler: async (ctx) => {
      const id = known(ctx);
      await smallBody(ctx, []);
      return ok((await ctx.api.merge(id)) satisfies MergeResult);
    },
  },
  { method: 'POST', path: `${base}/resolve-conflict`, handler: resolveConflict },
  { method: 'POST', path: `${base}/push`, handler: push },
  {
    method: 'GET',
    path: `${base}/pull-request`,
    handler: async (ctx) => ok((await ctx.api.pullRequestAvailable(known(ctx))) satisfies PullRequestAvailability),
  },
  { method: 'POST', path: `${base}/pull-request`, handler: pullRequest },
  {
    method: 'GET',
    path: `${base}/discard`,
    handler: async (ctx) => ok((await ctx.api.discardPreview(known(ctx))) satisfies DiscardPreview),
  },
  { method: 'POST', path: `${base}/discard`, handler: discard },
];
