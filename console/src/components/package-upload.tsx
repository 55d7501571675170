/** Uploads an AASX package through the AASX File Server API (POST /packages, multipart). */
import { useState } from "preact/hooks";
import { request } from "../api.ts";

export function PackageUpload({ onUploaded }: { onUploaded: () => void }) {
  const [status, setStatus] = useState<{ text: string; error?: boolean } | undefined>();
  const upload = async (file: File) => {
    setStatus({ text: `Uploading ${file.name}…` });
    const form = new FormData();
    form.append("file", file, file.name);
    form.append("fileName", file.name);
    try {
      await request("/packages", { method: "POST", body: form });
      setStatus({ text: `Uploaded ${file.name}` });
      onUploaded();
    } catch (error) {
      setStatus({ text: `Upload of ${file.name} failed: ${(error as Error).message}`, error: true });
    }
  };
  return (
    <div class="upload">
      <label>
        Upload AASX{" "}
        <input
          type="file"
          accept=".aasx,application/asset-administration-shell-package+xml"
          onChange={(event) => {
            const input = event.target as HTMLInputElement;
            const file = input.files?.[0];
            if (file) void upload(file).finally(() => (input.value = ""));
          }}
        />
      </label>
      {status && (
        <span class={status.error ? "error" : "status"} role="status">
          {status.text}
        </span>
      )}
    </div>
  );
}
