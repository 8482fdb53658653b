// Ten recovery codes, shown once after TOTP is set up or the codes are replaced: to copy or
// download, since the server keeps only their hashes.
import { CopyButton } from '../../ui/copy-button';
import { saveFile } from '../../ui/save-file';

export function RecoveryCodes({ codes }: { codes: string[] }) {
  const text = `Outpost recovery codes (each works once)\n\n${codes.join('\n')}\n`;
  return (
    <div className="recovery-codes">
      <p className="notice" role="status">
        Save these recovery codes now: they are shown only once. Each one signs you in once if you lose your authenticator app.
      </p>
      <ol aria-label="Recovery codes">
        {codes.map((code) => (
          <li key={code}>
            <code>{code}</code>
          </li>
        ))}
      </ol>
      <div className="actions">
        <CopyButton text={text} label="Copy recovery codes" />
        <button type="button" onClick={() => saveFile({ blob: new Blob([text], { type: 'text/plain' }), filename: 'outpost-recovery-codes.txt' })}>
          Download recovery codes
        </button>
      </div>
    </div>
  );
}
