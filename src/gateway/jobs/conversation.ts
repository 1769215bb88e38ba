/** The conversation a job goes to (a schedule's run or home, a webhook's home), made before its message enters. */
import type { Projects } from '../../projects/service.js';
import type { Store } from '../../store/store.js';

/** The conversation exists, with its title, and the job's project when it has none yet and the project is known. */
export function ensureJobConversation(
  d: { store: Store; projects: Projects },
  place: { conversationId: string; title?: string },
  project: string | undefined,
): void {
  const { conversationId, title } = place;
  const i = conversationId.indexOf(':');
  const channel = conversationId.slice(0, i);
  const conv = d.store.ensureConversation(conversationId, channel, conversationId.slice(i + 1), title);
  if (project && !conv.project && d.projects.find(project)) d.store.setProject(conv.id, project, null);
}
