/**
 *   GET /api/status     the status report (StatusBody)
 *   GET /api/channels   channel states, with a pending WhatsApp pairing QR code as SVG (ChannelList)
 *   GET /api/projects   the projects to start a conversation in (ProjectList)
 */
import { qrSvg } from '../qr-svg.js';
import { ok, type Route } from '../route.js';
import type { ChannelList, ProjectList, StatusBody } from '../wire.js';

export const gatewayRoutes: Route[] = [
  { method: 'GET', path: '/api/status', handler: ({ api }) => ok(api.status() satisfies StatusBody) },
  {
    method: 'GET',
    path: '/api/channels',
    handler: ({ api }) => {
      const channels = api.channels().map(({ qr, ...c }) => ({ ...c, ...(qr ? { qrSvg: qrSvg(qr) } : {}) }));
      return ok({ channels } satisfies ChannelList);
    },
  },
  { method: 'GET', path: '/api/projects', handler: ({ api }) => ok(api.projects() satisfies ProjectList) },
];
