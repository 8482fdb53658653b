/** Hands a downloaded file to the browser as if its link had been followed. */
export function saveFile({ blob, filename }: { blob: Blob; filename: string }): void {
  const link = document.createElement('a');
  link.href = URL.createObjectURL(blob);
  link.download = filename;
  link.click();
  // Revoked later, not at once: some browsers read the URL after click() returns.
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
}
