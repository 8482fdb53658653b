// Reads one HTTP/1.x response from the bytes of a connection, as they arrive: the status, the
// headers and the body (Content-Length, chunked, or up to the close), skipping interim 1xx
// responses. The HTTP prober talks to the socket itself (see http-request.ts), which costs a
// quarter less CPU per check than node's http client; this is the reading half of that.
//
// Lenient where user agents may be (bare LF line ends, folded header lines), strict where a
// wrong guess would misread the body (Content-Length, chunk sizes).
import { HTTP_TOKEN } from '../../../shared/src/http-syntax.js';

/** Thrown for bytes that are not an HTTP/1.x response; the `HPE_` code reads as node's parser's. */
export class HttpParseError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'HttpParseError';
  }
}

export interface ResponseHead {
  status: number;
  /** Lower-case names; repeated fields joined with ", ", except the singletons below (first kept). */
  headers: Record<string, string>;
}

export interface ParserOptions {
  /** A HEAD request's response has no body, whatever its headers say. */
  headRequest: boolean;
  /** Body bytes kept at most; reaching them completes the response (truncated). */
  maxBodyBytes: number;
  maxHeadBytes?: number;
}

/** Node's own default limit (--max-http-header-size). */
const DEFAULT_MAX_HEAD_BYTES = 16 * 1024;
const MAX_CHUNK_LINE_BYTES = 4 * 1024;
const STATUS_LINE = /^HTTP\/1\.[01] ([1-9]\d\d)(?:[ \t].*)?$/;
const SINGLETONS = new Set(['location', 'content-type', 'content-length', 'host', 'authorization', 'etag', 'last-modified', 'server', 'age', 'expires', 'retry-after']);

type Framing =
  | { kind: 'none' }
  | { kind: 'length'; remaining: number }
  | { kind: 'chunked'; step: 'size' | 'data' | 'data-end' | 'trailers'; remaining: number }
  | { kind: 'close' };

export class ResponseParser {
  private pending: Buffer | undefined;
  private finalHead: ResponseHead | undefined;
  private framing: Framing | undefined;
  private readonly chunks: Buffer[] = [];
  private bodyBytes = 0;
  private complete = false;
  private cut = false;
  private received = false;
  private readonly maxHeadBytes: number;

  constructor(private readonly options: ParserOptions) {
    this.maxHeadBytes = options.maxHeadBytes ?? DEFAULT_MAX_HEAD_BYTES;
  }

  get head(): ResponseHead | undefined {
    return this.finalHead;
  }

  /** The body read, at most maxBodyBytes of it. */
  body(): Buffer {
    const body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    return body.length > this.options.maxBodyBytes ? body.subarray(0, this.options.maxBodyBytes) : body;
  }

  /** The body reached maxBodyBytes and the rest was not read. */
  get truncated(): boolean {
    return this.cut;
  }

  /** Takes the next bytes of the connection; true once the response is complete. */
  write(chunk: Buffer): boolean {
    if (this.complete) return true;
    this.received ||= chunk.length > 0;
    let data = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    while (!this.complete && data.length > 0) {
      const rest = this.framing ? this.readBody(data) : this.readHead(data);
      if (rest === undefined) break;
      data = rest;
    }
    return this.complete;
  }

  /** The connection closed: true when that completes the response, an error when it cuts it short. */
  end(): true {
    if (this.complete) return true;
    if (this.framing?.kind === 'close') return (this.complete = true);
    if (!this.received) throw new Error('connection closed without a response');
    throw new Error('connection closed before the response was complete');
  }

  /** Parses a head once all of it is here; returns the bytes after it, or undefined to wait for more. */
  private readHead(data: Buffer): Buffer | undefined {
    const end = headEnd(data);
    if (end === undefined) {
      if (data.length > this.maxHeadBytes) throw headTooLarge(this.maxHeadBytes);
      // Bytes that cannot start a response are refused at once, not at the timeout.
      if (!'HTTP/'.startsWith(data.subarray(0, 5).toString('latin1'))) throw notHttp(data);
      this.pending = data;
      return undefined;
    }
    if (end.at > this.maxHeadBytes) throw headTooLarge(this.maxHeadBytes);
    const head = parseHead(data.subarray(0, end.at).toString('latin1'), data);
    const rest = data.subarray(end.at + end.length);
    // 100 Continue, 103 Early Hints: the real response follows on the same connection.
    if (head.status < 200 && head.status !== 101) return rest;
    this.finalHead = head;
    this.framing = framingOf(head, this.options.headRequest);
    if (this.framing.kind === 'none') this.complete = true;
    return rest;
  }

  /** Consumes body bytes by the response's framing; returns what is left, or undefined to wait. */
  private readBody(data: Buffer): Buffer | undefined {
    const framing = this.framing!;
    switch (framing.kind) {
      case 'close':
        this.keep(data);
        return undefined;
      case 'length': {
        const take = Math.min(framing.remaining, data.length);
        this.keep(data.subarray(0, take));
        framing.remaining -= take;
        if (framing.remaining === 0) this.complete = true;
        return undefined;
      }
      case 'chunked':
        return this.readChunked(framing, data);
      case 'none':
        return undefined;
    }
  }

  private readChunked(chunked: Extract<Framing, { kind: 'chunked' }>, data: Buffer): Buffer | undefined {
    if (chunked.step === 'data') {
      const take = Math.min(chunked.remaining, data.length);
      this.keep(data.subarray(0, take));
      chunked.remaining -= take;
      if (chunked.remaining === 0) chunked.step = 'data-end';
      return data.subarray(take);
    }
    const newline = data.indexOf(0x0a);
    if (newline < 0) {
      if (data.length > MAX_CHUNK_LINE_BYTES) throw new HttpParseError('chunk line too long', 'HPE_INVALID_CHUNK_SIZE');
      this.pending = data;
      return undefined;
    }
    const line = data.subarray(0, newline).toString('latin1').replace(/\r$/, '');
    const rest = data.subarray(newline + 1);
    if (chunked.step === 'data-end') {
      if (line !== '') throw new HttpParseError('chunk data longer than its size', 'HPE_INVALID_CHUNK_SIZE');
      chunked.step = 'size';
    } else if (chunked.step === 'size') {
      const size = line.split(';', 1)[0]!.trim();
      if (!/^[0-9a-fA-F]{1,8}$/.test(size)) throw new HttpParseError(`invalid chunk size "${size.slice(0, 20)}"`, 'HPE_INVALID_CHUNK_SIZE');
      chunked.remaining = parseInt(size, 16);
      chunked.step = chunked.remaining === 0 ? 'trailers' : 'data';
    } else if (line === '') {
      this.complete = true;
    }
    return rest;
  }

  private keep(bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.chunks.push(bytes);
    this.bodyBytes += bytes.length;
    // Enough to judge a keyword: stop rather than download an endless stream.
    if (this.bodyBytes >= this.options.maxBodyBytes) {
      this.cut = true;
      this.complete = true;
    }
  }
}

function headEnd(data: Buffer): { at: number; length: number } | undefined {
  const crlf = data.indexOf('\r\n\r\n');
  const lf = data.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return undefined;
}

function parseHead(text: string, data: Buffer): ResponseHead {
  const lines = text.split('\n');
  const statusLine = lines[0]!.replace(/\r$/, '');
  const status = STATUS_LINE.exec(statusLine);
  if (!status) throw notHttp(data);
  const headers: Record<string, string> = {};
  let last: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (line.startsWith(' ') || line.startsWith('\t')) {
      // An obsolete folded line continues the previous field (RFC 9112 5.2: replace with a space).
      if (last === undefined) throw new HttpParseError('response head starts with a folded line', 'HPE_INVALID_HEADER_TOKEN');
      headers[last] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon) : '';
    if (!HTTP_TOKEN.test(name)) throw new HttpParseError(`invalid header line "${line.slice(0, 40)}"`, 'HPE_INVALID_HEADER_TOKEN');
    const key = name.toLowerCase();
    const value = line.slice(colon + 1).trim();
    const seen = headers[key];
    if (seen === undefined) headers[key] = value;
    else if (key === 'content-length' && seen !== value) throw new HttpParseError('conflicting Content-Length headers', 'HPE_UNEXPECTED_CONTENT_LENGTH');
    else if (!SINGLETONS.has(key)) headers[key] = `${seen}, ${value}`;
    last = key;
  }
  return { status: Number(status[1]), headers };
}

/** RFC 9112 6.3, for a response: what follows the head, and how its end is known. */
function framingOf(head: ResponseHead, headRequest: boolean): Framing {
  if (headRequest || head.status === 101 || head.status === 204 || head.status === 304) return { kind: 'none' };
  const transferEncoding = head.headers['transfer-encoding'];
  if (transferEncoding !== undefined) {
    const last = transferEncoding.split(',').pop()!.trim().toLowerCase();
    return last === 'chunked' ? { kind: 'chunked', step: 'size', remaining: 0 } : { kind: 'close' };
  }
  const length = head.headers['content-length'];
  if (length === undefined) return { kind: 'close' };
  if (!/^\d{1,15}$/.test(length)) throw new HttpParseError(`invalid Content-Length "${length.slice(0, 20)}"`, 'HPE_UNEXPECTED_CONTENT_LENGTH');
  const remaining = Number(length);
  return remaining === 0 ? { kind: 'none' } : { kind: 'length', remaining };
}

function headTooLarge(limit: number): HttpParseError {
  return new HttpParseError(`response head larger than ${limit} bytes`, 'HPE_HEADER_OVERFLOW');
}

function notHttp(data: Buffer): HttpParseError {
  const start = data.subarray(0, 40).toString('latin1').split(/\r?\n/, 1)[0];
  return new HttpParseError(`the answer starts "${start}", not "HTTP/1.x"`, 'HPE_INVALID_CONSTANT');
}
