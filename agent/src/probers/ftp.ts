// FTP: reads the (possibly multi-line) greeting, then QUIT. Passes on code 220. The greeting
// is the `banner` source, its lines joined by \n.
import { converse } from './conversation.js';
import type { Prober } from './prober.js';

export function ftpProber(): Prober {
  return {
    family: 'FTP',
    prepare: (target) => (signal) =>
      converse(target, signal, async (s, observed) => {
        const greeting = await s.readReply('FTP');
        const bannerMs = s.elapsed();
        observed.banner = greeting.lines.join('\n');
        s.write('QUIT\r\n');
        const banner = greeting.lines.at(-1) ?? '';
        return { ok: greeting.code === 220, message: `FTP ${banner.slice(0, 120)}`, details: { banner_ms: bannerMs, reply_code: greeting.code } };
      }),
  };
}
