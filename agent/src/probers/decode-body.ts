// Undoes the content codings a server applied to a body (RFC 9110 8.4) before a keyword or an
// assertion reads it: gzip, deflate and br, the ones an HTTP check asks for. The decoded body is
// capped like a plain one, and decoding stops there: a megabyte of gzip that would inflate to a
// gigabyte costs a megabyte of memory and the CPU to make it, no more.
import zlib from 'node:zlib';

export interface DecodedBody {
  body: Buffer;
  /** Decoding reached maxBytes and the rest was not decoded. */
  truncated: boolean;
}

/**
 * `contentEncoding` lists the codings in the order the server applied them; they are undone
 * last first. A body with a coding this does not know is returned as sent.
 */
export async function decodeBody(body: Buffer, contentEncoding: string, maxBytes: number): Promise<DecodedBody> {
  const codings = contentEncoding
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
  if (!codings.every((c) => Object.hasOwn(CODINGS, c))) return { body, truncated: false };
  let decoded: DecodedBody = { body, truncated: false };
  for (const coding of codings.reverse()) {
    const next = await decodeOne(decoded.body, coding, maxBytes);
    decoded = { body: next.body, truncated: decoded.truncated || next.truncated };
  }
  return decoded;
}

type Decoder = zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress;
type Options = zlib.ZlibOptions & zlib.BrotliOptions;

interface Codec {
  sync(input: Buffer, options: Options): Buffer;
  stream(options: Options): Decoder;
  options: Options;
}

// A body cut at the read limit ends mid-stream: flushing what is there, rather than finishing,
// decodes its beginning instead of failing with "unexpected end of file".
const FLUSH = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
const GZIP: Codec = { sync: zlib.gunzipSync, stream: zlib.createGunzip, options: FLUSH };
const ZLIB: Codec = { sync: zlib.inflateSync, stream: zlib.createInflate, options: FLUSH };
const RAW_DEFLATE: Codec = { sync: zlib.inflateRawSync, stream: zlib.createInflateRaw, options: FLUSH };
const BROTLI: Codec = { sync: zlib.brotliDecompressSync, stream: zlib.createBrotliDecompress, options: { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH } };

const CODINGS: Record<string, (body: Buffer) => Codec> = {
  gzip: () => GZIP,
  'x-gzip': () => GZIP,
  // "deflate" is the zlib format (RFC 9110 8.4.1.2), yet some servers send raw deflate, as
  // browsers accept: a zlib header is told by its first two bytes.
  deflate: (body) => (isZlibHeader(body) ? ZLIB : RAW_DEFLATE),
  br: () => BROTLI,
};

function isZlibHeader(body: Buffer): boolean {
  return body.length >= 2 && (body[0]! & 0x0f) === 8 && ((body[0]! << 8) | body[1]!) % 31 === 0;
}

/**
 * zlib's *Sync call first: a third of a stream's CPU for the bodies checks get. It can stop at
 * maxBytes only by failing, losing what it decoded; a body past the cap is decoded again as a
 * stream, which stops there and keeps the beginning.
 */
async function decodeOne(input: Buffer, coding: string, maxBytes: number): Promise<DecodedBody> {
  const codec = CODINGS[coding]!(input);
  try {
    return { body: codec.sync(input, { ...codec.options, maxOutputLength: maxBytes }), truncated: false };
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'ERR_BUFFER_TOO_LARGE') throw undecodable(coding, err);
  }
  return inflate(input, codec.stream(codec.options), maxBytes, coding);
}

function inflate(input: Buffer, decoder: Decoder, maxBytes: number, coding: string): Promise<DecodedBody> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    decoder.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= maxBytes) {
        decoder.destroy();
        resolve({ body: Buffer.concat(chunks).subarray(0, maxBytes), truncated: true });
      }
    });
    decoder.once('end', () => resolve({ body: Buffer.concat(chunks), truncated: false }));
    decoder.once('error', (err) => reject(undecodable(coding, err)));
    decoder.end(input);
  });
}

function undecodable(coding: string, err: unknown): Error {
  return new Error(`the ${coding} body could not be decoded: ${(err as Error).message}`);
}
