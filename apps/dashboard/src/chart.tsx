import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { STATE_COLOURS } from './ui.js';

/**
 * A uPlot chart of `data` (x in seconds), redrawn when the data changes. `bands` shades the plot by
 * the breaker's state over time (state bands).
 */
export function Chart(props: {
  title: string;
  series: uPlot.Series[];
  scales?: uPlot.Scales;
  axes?: uPlot.Axis[];
  data: uPlot.AlignedData;
  bands?: { from: number; to: number; state: string }[];
  height?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const bands = useRef(props.bands ?? []);
  bands.current = props.bands ?? [];

  useEffect(() => {
    if (!host.current) return;
    const width = Math.max(320, host.current.clientWidth || 800);
    plot.current = new uPlot(
      {
        title: props.title,
        width,
        height: props.height ?? 220,
        series: [{}, ...props.series],
        ...(props.scales ? { scales: props.scales } : {}),
        ...(props.axes ? { axes: props.axes } : {}),
        hooks: {
          drawClear: [
            (u) => {
              const ctx = u.ctx;
              ctx.save();
              for (const b of bands.current) {
                const x0 = u.valToPos(b.from, 'x', true);
                const x1 = u.valToPos(b.to, 'x', true);
                ctx.fillStyle = `${STATE_COLOURS[b.state] ?? '#888'}22`;
                ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
              }
              ctx.restore();
            },
          ],
        },
      },
      props.data,
      host.current,
    );
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
    // the layout is fixed per mount; data updates go through setData below
  }, [props.series.length]);

  useEffect(() => {
    plot.current?.setData(props.data);
  }, [props.data]);

  return <div class="chart" ref={host} />;
}
