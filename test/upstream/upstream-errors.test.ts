import { describe, expect, it } from 'vitest';
import { A2AError } from '../../src/model/index.js';
import { sanitizeUpstreamText } from '../../src/scrub-text.js';
import { fromJsonRpcError, fromTransportError } from '../../src/upstream/upstream-errors.js';

describe('sanitizeUpstreamText', () => {
  it('drops a Python traceback and everything after it', () => {
    const text = 'ValueError: bad thing\nTraceback (most recent call last):\n  File "/srv/app.py", line 3, in run\n    raise';
    expect(sanitizeUpstreamText(text)).toBe('ValueError: bad thing');
  });

  it('drops JS stack lines', () => {
    expect(sanitizeUpstreamText('Error: nope\n    at run (/srv/app.js:1:2)\n    at main (/srv/app.js:9:1)')).toBe('Error: nope');
  });

  it('replaces absolute paths, but not URLs', () => {
    expect(sanitizeUpstreamText("cannot open '/home/alice/.iac-code/a2a/x.json' here")).toBe("cannot open '[path]' here");
    expect(sanitizeUpstreamText('see C:\\Users\\alice\\secrets.txt now')).toBe('see [path] now');
    expect(sanitizeUpstreamText('in ~/.iac-code/config.yaml')).toBe('in [path]');
    expect(sanitizeUpstreamText('from file:///etc/passwd')).toBe('from [path]');
    expect(sanitizeUpstreamText('call http://example.com/a/b failed')).toBe('call http://example.com/a/b failed');
    expect(sanitizeUpstreamText('Task abc/def not found')).toBe('Task abc/def not found');
  });

  it('redacts configured secrets and credential-looking tokens', () => {
    expect(sanitizeUpstreamText('key hunter2-key rejected', ['hunter2-key'])).toBe('key [redacted] rejected');
    expect(sanitizeUpstreamText('header Bearer abc.def-123 invalid')).toBe('header Bearer [redacted] invalid');
    expect(sanitizeUpstreamText('llm key sk-abcdefgh12345678 invalid')).toBe('llm key [redacted] invalid');
  });

  it("keeps what is not a path, a trace or a secret: a Chinese sentence with slashes, a URL's query, a line that starts with 'at'", () => {
    expect(sanitizeUpstreamText('规格 ecs.g7.large 价格 0.5 元/小时/台，请更换可用区。')).toBe(
      '规格 ecs.g7.large 价格 0.5 元/小时/台，请更换可用区。',
    );
    expect(sanitizeUpstreamText('请在 控制台/访问控制/用户 中授权')).toBe('请在 控制台/访问控制/用户 中授权');
    expect(sanitizeUpstreamText('sign in: https://login.example.com/authorize?redirect_uri=/cb/done&state=x')).toBe(
      'sign in: https://login.example.com/authorize?redirect_uri=/cb/done&state=x',
    );
    expect(sanitizeUpstreamText('Booking failed:\n  at 5pm all seats are taken')).toBe('Booking failed:\n  at 5pm all seats are taken');
    expect(sanitizeUpstreamText('读取 /home/alice/.iac-code/x.json 失败')).toBe('读取 [path] 失败');
  });

  it('redacts a value under a name that says it is secret; counts of tokens are no secret', () => {
    expect(sanitizeUpstreamText('bad alibaba_cloud_access_key_secret=Zx8yQ2 given')).toBe('bad alibaba_cloud_access_key_secret=[redacted] given');
    expect(sanitizeUpstreamText('{"password": "hunter2"}')).toBe('{"password": "[redacted]"}');
    expect(sanitizeUpstreamText('context too long, max tokens: 4096')).toBe('context too long, max tokens: 4096');
    expect(sanitizeUpstreamText('secret_name: must be lowercase; token_id: 42')).toBe('secret_name: must be lowercase; token_id: 42');
    expect(sanitizeUpstreamText('db_password_id=7 db_password=hunter2')).toBe('db_password_id=7 db_password=[redacted]');
  });

  it('keeps the exception a Python traceback ends with: it is the reason', () => {
    const text =
      'Traceback (most recent call last):\n  File "/srv/app.py", line 3, in run\n    deploy()\nRuntimeError: quota exceeded in /home/alice/stack';
    expect(sanitizeUpstreamText(text)).toBe('RuntimeError: quota exceeded in [path]');
    expect(sanitizeUpstreamText(`Deploy failed.\n${text}`)).toBe('Deploy failed.\nRuntimeError: quota exceeded in [path]');
  });

  it("redacts a URL's password, a private key, an Authorization header and a quoted phrase under a secret name", () => {
    expect(sanitizeUpstreamText('cannot reach redis://app:s3cr3t-pw@10.0.0.5:6379/0')).toBe('cannot reach redis://[redacted]@[internal address]/0');
    expect(sanitizeUpstreamText('connect to redis://:p4ssw0rd@10.0.0.5:6379/0 failed')).toBe(
      'connect to redis://[redacted]@[internal address]/0 failed',
    );
    expect(sanitizeUpstreamText('clone https://ghp_abcdefghijklmnopqrstuvwxyz0123@github.com/a/b failed')).toBe(
      'clone https://[redacted]@github.com/a/b failed',
    );
    expect(sanitizeUpstreamText('token ghp_abcdefghijklmnopqrstuvwxyz0123 expired')).toBe('token [redacted] expired');
    expect(sanitizeUpstreamText('key AKIAABCDEFGHIJKLMNOP refused; LTAI5tAbCdEfGhIjKlMn:s3cr3tValue0 refused')).toBe(
      'key [redacted] refused; [redacted] refused',
    );
    expect(sanitizeUpstreamText('bad key -----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY----- given')).toBe(
      'bad key [redacted] given',
    );
    expect(sanitizeUpstreamText('bad key -----BEGIN PRIVATE KEY-----\nMIIEpAIBAAKCAQEA')).toBe('bad key [redacted]');
    expect(sanitizeUpstreamText('sent Authorization: token ghp_abc123 rejected')).toBe('sent Authorization: [redacted]');
    expect(sanitizeUpstreamText('{"authorization":"Bearer abc"}')).toBe('{"authorization":"[redacted]"}');
    expect(sanitizeUpstreamText('password: "correct horse battery" is wrong')).toBe('password: "[redacted]" is wrong');
  });

  it("scrubs a path after '=', but not a URL query's; keeps an HTTP API's path and a choice like 选项A:/B", () => {
    expect(sanitizeUpstreamText('cwd=/workspaces/alice/stack failed')).toBe('cwd=[path] failed');
    expect(sanitizeUpstreamText('https://x.example.com/cb?next=/a/b')).toBe('https://x.example.com/cb?next=/a/b');
    expect(sanitizeUpstreamText('POST /api/v1/stacks returned 403')).toBe('POST /api/v1/stacks returned 403');
    expect(sanitizeUpstreamText('GET /stacks/42/outputs returned 404')).toBe('GET /stacks/42/outputs returned 404');
    expect(sanitizeUpstreamText('请选择 选项A:/B 或 C')).toBe('请选择 选项A:/B 或 C');
    expect(sanitizeUpstreamText('open D:/data/secret.txt')).toBe('open [path]');
  });

  it('scrubs the start of a very long text: what is shown of it is safe, the rest is cut', () => {
    const long = `token=abc123secret ${'a=/b/c/d '.repeat(30_000)} sk-abcdefgh12345678`;
    const out = sanitizeUpstreamText(long);
    expect(out.startsWith('token=[redacted] ')).toBe(true);
    expect(out.endsWith('...')).toBe(true);
    expect(out).not.toMatch(/abc123|sk-abcd/);
  });

  it('bounds the length', () => {
    const out = sanitizeUpstreamText('x'.repeat(5_000));
    expect(out.length).toBeLessThanOrEqual(4_000);
    expect(out.endsWith('...')).toBe(true);
  });

  it('keeps a failure report that lists what failed whole (30 resources in Chinese)', () => {
    const report = Array.from({ length: 30 }, (_, i) => `资源${i + 1}（ALIYUN::ECS::Instance）创建失败：库存不足，请更换可用区。`).join('\n');
    expect(report.length).toBeGreaterThan(1_000);
    expect(sanitizeUpstreamText(report)).toBe(report);
  });
});

describe('fromJsonRpcError', () => {
  it('keeps the code, scrubs the message and keeps ErrorInfo string metadata and violations', () => {
    const error = fromJsonRpcError({
      code: -32001,
      message: 'Task t-1 not found in /var/lib/iac/tasks',
      data: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'TASK_NOT_FOUND',
          domain: 'a2a-protocol.org',
          metadata: { taskId: 't-1', errors: [{ x: 1 }] },
        },
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'id', description: 'Field is required.' }] },
      ],
    });
    expect(error).toBeInstanceOf(A2AError);
    expect(error.code).toBe(-32001);
    expect(error.message).toBe('Task t-1 not found in [path]');
    expect(error.metadata).toEqual({ taskId: 't-1' });
    expect(error.violations).toEqual([{ field: 'id', description: 'Field is required.' }]);
  });

  it('ignores a string data (proto parse errors) and malformed objects become -32006', () => {
    const parse = fromJsonRpcError({ code: -32602, message: 'Invalid params', data: 'Failed to parse at /x/y' });
    expect(parse.code).toBe(-32602);
    expect(parse.metadata).toEqual({});
    expect(fromJsonRpcError({ message: 'no code' }).code).toBe(-32006);
    expect(fromJsonRpcError('boom').code).toBe(-32006);
  });
});

describe('fromTransportError', () => {
  const withCode = (code: string): Error => Object.assign(new Error('x'), { code });

  it('maps refused/reset to unavailable and undici timeouts to timed out (-32603)', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET']) {
      expect(fromTransportError(withCode(code))).toMatchObject({ code: -32603, message: 'Upstream agent is unavailable' });
    }
    for (const code of ['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT']) {
      expect(fromTransportError(withCode(code))).toMatchObject({ code: -32603, message: 'Upstream agent timed out' });
      expect(fromTransportError(withCode(code)).statusInfo).toEqual({ httpStatus: 504, grpcStatus: 'DEADLINE_EXCEEDED' });
    }
  });

  it('503 UNAVAILABLE only for an agent never reached (a retry repeats none of its work); lost mid-call or undecodable: 500', () => {
    const unavailable = { httpStatus: 503, grpcStatus: 'UNAVAILABLE' };
    for (const code of ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
      expect(fromTransportError(withCode(code)).statusInfo, code).toEqual(unavailable);
    }
    // undici wraps the socket's error; a dual-stack connect fails with an AggregateError of both.
    expect(fromTransportError(Object.assign(new Error('fetch failed'), { cause: withCode('ECONNREFUSED') })).statusInfo).toEqual(unavailable);
    expect(fromTransportError(new AggregateError([withCode('ECONNREFUSED'), withCode('ECONNREFUSED')])).statusInfo).toEqual(unavailable);
    for (const error of [withCode('ECONNRESET'), withCode('UND_ERR_SOCKET'), withCode('Z_DATA_ERROR'), new TypeError('a bug')]) {
      expect(fromTransportError(error)).toMatchObject({ message: 'Upstream agent is unavailable' });
      expect(fromTransportError(error).statusInfo).toEqual({ httpStatus: 500, grpcStatus: 'INTERNAL' });
    }
  });

  it('names the abort: our own timeout, or the caller (keeping an A2AError reason)', () => {
    expect(fromTransportError(new Error('aborted'), { timedOut: true }).message).toBe('Upstream agent timed out');
    const caller = new AbortController();
    const reason = A2AError.taskNotFound('t');
    caller.abort(reason);
    expect(fromTransportError(new Error('aborted'), { caller: caller.signal })).toBe(reason);
  });

  it('passes an A2AError through untouched', () => {
    const error = A2AError.invalidAgentResponse();
    expect(fromTransportError(error)).toBe(error);
  });
});
