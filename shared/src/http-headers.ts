// Headers a user asks to be sent (HTTP and WebSocket checks, webhook channels): each goes out
// as a line of its own, so a name is an HTTP token and a value holds no line break or control
// character (the characters node's HTTP client accepts). Refused with a 400 when saved,
// rather than failing every check or delivery later. In zod's functional build, which the
// agent uses (see zod-english.ts); classic schemas take it as any other.
import * as z from 'zod/mini';
import { HTTP_FIELD_VALUE, HTTP_TOKEN } from './http-syntax.js';
import './zod-english.js';

export function httpHeaders(maxValueLength: number) {
  return z
    .record(z.string().check(z.minLength(1), z.maxLength(256)), z.string().check(z.maxLength(maxValueLength), z.regex(HTTP_FIELD_VALUE, 'a header value holds no line break or control character')))
    .check(
      z.superRefine((headers, ctx) => {
        for (const name of Object.keys(headers)) {
          if (!HTTP_TOKEN.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: "a header name is letters, digits and !#$%&'*+-.^_`|~ only" });
        }
      }),
    );
}
