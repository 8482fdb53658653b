// SMTP: reads the greeting, says EHLO, then QUIT. Passes on a 220 greeting, which is the
// `banner` source (its lines joined by \n when it has several).
import { converse, type Verdict } from './conversation.js';
import type { Prober } from './prober.js';

export function smtpProber(): Prober<'SMTP'> {
  return {
    family: 'SMTP',
    prepare: (target) => (signal) =>
      converse(target, signal, async (s, observed): Promise<Verdict> => {
        const greeting = await s.readReply('SMTP');
        const bannerMs = s.elapsed();
        observed.banner = greeting.lines.join('\n');
        const banner = greeting.lines[0] ?? '';
        if (greeting.code !== 220) return { ok: false, message: `SMTP greeting ${banner.slice(0, 120)}`, details: { banner_ms: bannerMs, reply_code: greeting.code } };
        s.write(`EHLO ${target.options.ehlo_name ?? 'outpost-agent.local'}\r\n`);
        const ehlo = await s.readReply('SMTP');
        s.write('QUIT\r\n');
        const extensions = ehlo.lines.slice(1).map((l) => l.slice(4).split(' ')[0] ?? '').filter(Boolean);
        return {
          ok: true,
          message: `SMTP ${banner.slice(0, 120)}`,
          details: { banner_ms: bannerMs, reply_code: greeting.code, ehlo_code: ehlo.code, extensions },
        };
      }),
  };
}
