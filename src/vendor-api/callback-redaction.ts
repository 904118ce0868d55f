/**
 * Callback capability URLs ({base}/callbacks/{workflowId}/{step}/{attempt}/{token},
 * docs/operations.md, "Callbacks") travel to the vendor as `callback_url`, and a vendor may echo
 * one back in an error or a task's fail reason. Here, the bottom layer, so the vendor client, the
 * activities and the logger can all strip the token from text that came from outside.
 */
// A capability URL's last segment is its token: keep the workflow, step and attempt (they
// help a reader), drop the token. Raw and percent-encoded ("%2F") slashes both.
const CALLBACK_TOKEN_IN_TEXT = /(\/callbacks\/(?:[^\s"'<>?#/\\]+\/)+)[^\s"'<>?#/\\]+/gi;
const ENCODED_CALLBACK_TOKEN_IN_TEXT = /(callbacks%2F(?:[^\s"'<>?#&\\]+?%2F)+)[^\s"'<>?#&\\%]+/gi;

/**
 * `text` with the token of every callback URL in it replaced by [redacted], for text that
 * came from outside (a vendor echoing the callback URL in an error) or goes into a log.
 */
export function redactCallbackTokens(text: string): string {
  if (!/callbacks(\/|%2F)/i.test(text)) return text;
  return text.replace(CALLBACK_TOKEN_IN_TEXT, '$1[redacted]').replace(ENCODED_CALLBACK_TOKEN_IN_TEXT, '$1[redacted]');
}
