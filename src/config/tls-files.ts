import { z } from 'zod';

/** The PEM files of a TLS block: a certificate, its key and a CA. */
export const TLS_FILE_FIELDS = {
  'cert-file': z.string().min(1).optional(),
  'key-file': z.string().min(1).optional(),
  'ca-file': z.string().min(1).optional(),
};

/** A certificate is only usable with its key, and the other way round; `key` names them in the error. */
export const certificateWithKey = (key: string) => ({
  check: (tls: { 'cert-file'?: string | undefined; 'key-file'?: string | undefined }): boolean => !tls['cert-file'] === !tls['key-file'],
  message: `${key}.cert-file and ${key}.key-file go together`,
});

/** A block of only the PEM files; `key` names them in the error. */
export const TlsFiles = (key: string) => {
  const pair = certificateWithKey(key);
  return z.strictObject(TLS_FILE_FIELDS).prefault({}).refine(pair.check, pair.message);
};
