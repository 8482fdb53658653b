// The part of sql.js (SQLite compiled to WebAssembly) that the Uptime Kuma importer uses; the
// package ships no types. Remove this file if @types/sql.js is added.
declare module 'sql.js' {
  export interface QueryResults {
    columns: string[];
    values: unknown[][];
  }
  export interface Database {
    exec(sql: string, params?: unknown[]): QueryResults[];
    close(): void;
  }
  export interface SqlJsStatic {
    Database: new (data?: Uint8Array) => Database;
  }
  export default function initSqlJs(config?: { locateFile?: (file: string) => string }): Promise<SqlJsStatic>;
}
