// A tiny inline SVG of the last 24 hourly mean response times; hours without checks break
// the line. Plain SVG: thousands of these are cheaper than one chart library instance each.
import { memo } from 'react';
import { formatMs } from '../../ui/format';

const WIDTH = 96;
const HEIGHT = 22;

export const Sparkline = memo(function Sparkline({ values }: { values: readonly (number | null)[] }) {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) {
    return (
      <span className="muted sparkline-empty" role="img" aria-label="response time trend: no checks in the last 24 hours">
        —
      </span>
    );
  }
  const max = Math.max(...known);
  const min = Math.min(...known);
  // A flat line (one value, or all equal) sits in the middle rather than on the floor.
  const span = max - min;
  const step = values.length > 1 ? WIDTH / (values.length - 1) : 0;
  const segments: string[] = [];
  let current = '';
  values.forEach((v, i) => {
    if (v === null) {
      if (current) segments.push(current);
      current = '';
      return;
    }
    const x = (i * step).toFixed(1);
    const y = (span === 0 ? HEIGHT / 2 : HEIGHT - 2 - ((v - min) / span) * (HEIGHT - 4)).toFixed(1);
    current += `${current ? 'L' : 'M'}${x} ${y}`;
  });
  if (current) segments.push(current);
  const label = `response time trend, last 24 hours: ${formatMs(min)} to ${formatMs(max)}`;
  return (
    <svg className="sparkline" width={WIDTH} height={HEIGHT} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label}>
      <title>{label}</title>
      {segments.map((d, i) =>
        d.includes('L') ? <path key={i} d={d} /> : <circle key={i} cx={d.split(' ')[0]!.slice(1)} cy={d.split(' ')[1]} r="2" />,
      )}
    </svg>
  );
});
