// What each badge says and in which colour, drawn as SVG by badge-maker (the shields.io
// renderer, which escapes the text). Pure functions of the figures.
import { makeBadge } from 'badge-maker';
import type { ServiceStatus } from '../../../../shared/src/status.js';

export interface BadgeFace {
  label: string;
  message: string;
  color: string;
}

const NO_DATA = 'lightgrey';

const STATUS_FACES: Record<ServiceStatus | 'PENDING', Omit<BadgeFace, 'label'>> = {
  GREEN: { message: 'up', color: 'brightgreen' },
  YELLOW: { message: 'degraded', color: 'yellow' },
  RED: { message: 'down', color: 'red' },
  PENDING: { message: 'pending', color: NO_DATA },
};

/** The first step whose threshold the value reaches (at least, or at most) picks the colour. */
const atLeast = (value: number, steps: [number, string][], otherwise: string) => steps.find(([t]) => value >= t)?.[1] ?? otherwise;
const atMost = (value: number, steps: [number, string][], otherwise: string) => steps.find(([t]) => value <= t)?.[1] ?? otherwise;

export function statusFace(status: ServiceStatus | null, label = 'status'): BadgeFace {
  return { label, ...STATUS_FACES[status ?? 'PENDING'] };
}

/** Cut, not rounded, to two decimals: 99.996% must not read as 100%. */
export function formatPercentage(p: number): string {
  return `${Math.floor(p * 100) / 100}%`;
}

export function uptimeFace(percentage: number | null, label = 'uptime'): BadgeFace {
  if (percentage === null) return { label, message: 'no data', color: NO_DATA };
  const color = atLeast(percentage, [[99.9, 'brightgreen'], [99, 'green'], [95, 'yellow'], [90, 'orange']], 'red');
  return { label, message: formatPercentage(percentage), color };
}

export function responseTimeFace(meanMs: number | null, label = 'response time'): BadgeFace {
  if (meanMs === null) return { label, message: 'no data', color: NO_DATA };
  const ms = Math.round(meanMs);
  const color = atMost(ms, [[200, 'brightgreen'], [500, 'green'], [1000, 'yellow'], [2000, 'orange']], 'red');
  return { label, message: `${ms} ms`, color };
}

export function certificateFace(daysLeft: number | null, label = 'certificate'): BadgeFace {
  if (daysLeft === null) return { label, message: 'unknown', color: NO_DATA };
  if (daysLeft < 0) return { label, message: 'expired', color: 'red' };
  const color = atLeast(daysLeft, [[30, 'brightgreen'], [14, 'yellow'], [7, 'orange']], 'red');
  return { label, message: `${daysLeft} day${daysLeft === 1 ? '' : 's'}`, color };
}

export function badgeSvg(face: BadgeFace): string {
  return makeBadge({ label: face.label, message: face.message, color: face.color });
}
