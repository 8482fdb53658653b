// Headers a user asks to be sent (HTTP and WebSocket checks, webhook channels): each goes out
// as a line of its own, so a name is an HTTP token and a value holds no line break or control
// character (the characters node's HTTP client accepts). Refused with a 400 when saved,
// rather than failing every check or delivery later.
import { z } from 'zod';
import { HTTP_FIELD_VALUE, HTTP_TOKEN } from './http-syntax.js';

export function httpHeaders(maxValueLength: number) {
  return z
    .record(z.string().min(1).max(256), z.string().max(maxValueLength).regex(HTTP_FIELD_VALUE, 'a header value holds no line break or control character'))
    .superRefine((headers, ctx) => {
      for (const name of Object.keys(headers)) {
        if (!HTTP_TOKEN.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: "a header name is letters, digits and !#$%&'*+-.^_`|~ only" });
      }
    });
}
