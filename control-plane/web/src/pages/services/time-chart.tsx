// A uPlot time series sized to its container and drawn in the page's colours, rebuilt when
// the system switches between light and dark.
import { useEffect, useRef, useSyncExternalStore } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { formatMs } from '../../ui/format';

const PALETTE = ['#1f6feb', '#e16f24', '#8250df', '#1a7f37', '#bf3989', '#0a7ea4', '#9a6700', '#cf222e'];
const DARK = '(prefers-color-scheme: dark)';

function subscribeScheme(onChange: () => void) {
  const query = matchMedia(DARK);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

const isDark = () => matchMedia(DARK).matches;

export interface TimeSeries {
  label: string;
  /** Values aligned with the chart's `times`; null where the series has no point. */
  values: (number | null)[];
}

interface TimeChartProps {
  /** What the chart shows, for assistive technology. */
  label: string;
  /** Unix seconds, ascending. */
  times: number[];
  series: TimeSeries[];
  height?: number;
}

export function TimeChart({ label, times, series, height = 240 }: TimeChartProps) {
  const container = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const dark = useSyncExternalStore(subscribeScheme, isDark);
  const shape = series.map((s) => s.label).join('\n');

  // The chart is rebuilt when its series or the colour scheme change, and fed new data otherwise.
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const style = getComputedStyle(document.documentElement);
    const text = style.getPropertyValue('--muted').trim() || (dark ? '#9198a1' : '#5b6470');
    const grid = style.getPropertyValue('--border').trim() || (dark ? '#30363d' : '#d8dce2');
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const options: uPlot.Options = {
      width: element.clientWidth || 600,
      height,
      series: [
        { label: 'Time' },
        ...series.map((s, i) => ({
          label: s.label,
          stroke: PALETTE[i % PALETTE.length],
          width: 1.5,
          spanGaps: true,
          points: { size: 4 },
          value: (_: uPlot, v: number | null) => (v === null ? '—' : formatMs(v)),
        })),
      ],
      axes: [axis, { ...axis, size: 64, values: (_, ticks) => ticks.map((t) => formatMs(t)) }],
      scales: { x: { time: true }, y: { range: (_, min, max) => [0, Math.max(max, 10) * 1.1] } },
      cursor: { drag: { x: true, y: false } },
    };
    const chart = new uPlot(options, [times, ...series.map((s) => s.values)], element);
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = null;
    };
    // Only a new set of series or colours rebuilds the chart; new data goes through setData below.
  }, [shape, dark, height]);

  useEffect(() => {
    plot.current?.setData([times, ...series.map((s) => s.values)]);
  }, [times, series]);

  return <div className="chart" ref={container} role="img" aria-label={label} />;
}
