// A button that downloads a file the API answers (a CSV export), saying what went wrong if
// it could not.
import { useMutation } from '@tanstack/react-query';
import { saveFile } from './save-file';

interface DownloadButtonProps {
  label: string;
  download(): Promise<{ blob: Blob; filename: string }>;
  disabled?: boolean;
}

export function DownloadButton({ label, download, disabled }: DownloadButtonProps) {
  const fetchFile = useMutation({ mutationFn: download, onSuccess: saveFile });
  return (
    <>
      <button type="button" disabled={disabled || fetchFile.isPending} onClick={() => fetchFile.mutate()}>
        {fetchFile.isPending ? 'Downloading…' : label}
      </button>
      {fetchFile.error && (
        <span className="field-error" role="alert">
          {fetchFile.error.message}
        </span>
      )}
    </>
  );
}
