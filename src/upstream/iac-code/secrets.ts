/**
 * The metadata keys iac-code reads its credentials from (docs/iac-code.md, "Secrets echoed back"):
 * a caller sends them in `metadata.iac_code`, and iac-code echoes them verbatim into the first Task
 * frame's history. The core redacts these besides every key its generic pattern catches
 * (core/redact.ts); `alibaba_cloud_access_key_id` is one the pattern alone would miss.
 */
export const IAC_CODE_SECRET_KEYS: readonly string[] = [
  'iac_code_api_key',
  'alibaba_cloud_access_key_id',
  'alibaba_cloud_access_key_secret',
  'alibaba_cloud_security_token',
  // Extra headers on iac-code's LLM calls (an `Authorization` among them), read in its source: older
  // servers echo them with the rest; the pattern matches neither the map's key nor a header's name.
  'llm_headers',
];
