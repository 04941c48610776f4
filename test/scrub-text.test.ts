import { describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS, sanitizeUpstreamText } from '../src/scrub-text.js';
import { withoutUrlCredentials } from '../src/url-credentials.js';

describe('sanitizeUpstreamText', () => {
  it('redacts a key under its header name, written as a header or as JSON', () => {
    for (const text of ['x-api-key: live-key-123456', 'X-API-Key=live-key-123456', '{"x-api-key":"live-key-123456"}', 'api-key: live-key-123456']) {
      expect(sanitizeUpstreamText(text), text).not.toContain('live-key-123456');
    }
  });

  it('redacts cookies, private keys and JSON Web Tokens whatever names them', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLXZhbHVl';
    const text = `cookie: session=abcdef123456; private_key: MIIEvQIBADANBgkq; upstream refused ${jwt}`;
    const safe = sanitizeUpstreamText(text);
    for (const secret of ['abcdef123456', 'MIIEvQIBADANBgkq', jwt]) expect(safe).not.toContain(secret);
  });

  it('cuts a stack trace whose line breaks are written out, as in a repr or a JSON text', () => {
    const js = String.raw`Error: boom\n    at foo (/app/dist/a.js:1:2)\n    at bar (/app/dist/b.js:3:4)`;
    expect(sanitizeUpstreamText(js)).toBe('Error: boom');
    const python = String.raw`Traceback (most recent call last):\n  File "/srv/app/main.py", line 3, in <module>\nValueError: bad input`;
    expect(sanitizeUpstreamText(python)).toBe('ValueError: bad input');
    expect(sanitizeUpstreamText('Error: boom\r    at foo (/app/dist/a.js:1:2)')).toBe('Error: boom');
  });

  it('hides a relative path that says it is one', () => {
    expect(sanitizeUpstreamText('cannot read ./src/config/local.yaml')).toBe('cannot read [path]');
    expect(sanitizeUpstreamText('see ../app/main.py for details')).toBe('see [path] for details');
  });

  it("keeps a well-known URL path (RFC 8615), no local path: the gateway's words name the card that was refused", () => {
    for (const text of [
      'the upstream agent refused the credentials for its card at /.well-known/agent-card.json (HTTP 401)',
      'no card at /.well-known/agent.json',
    ]) {
      expect(sanitizeUpstreamText(text)).toBe(text);
    }
    // A local path stays hidden, under a folder of that name or past one with `..`.
    expect(sanitizeUpstreamText('cannot open /srv/site/.well-known/agent.json')).toBe('cannot open [path]');
    expect(sanitizeUpstreamText('cannot open /.well-known/../etc/passwd')).toBe('cannot open [path]');
    expect(sanitizeUpstreamText('cannot open /.well-known/keys/private.pem')).toBe('cannot open [path]');
  });

  it('leaves names that only point at a secret, URLs and prose as they are', () => {
    const text = 'api_key_id: k-1, token_count: 3, see https://example.com/docs/./a and/or the key rotation guide';
    expect(sanitizeUpstreamText(text)).toBe(text);
  });

  it('leaves a validation message under a secret name as it is: its first word is prose, not a secret', () => {
    const reason = 'RDS creation failed: password: must be 8-32 characters and contain upper-case letters.';
    expect(sanitizeUpstreamText(reason)).toBe(reason);
    expect(sanitizeUpstreamText('Invalid token: please sign in again.')).toBe('Invalid token: please sign in again.');
    expect(sanitizeUpstreamText('api_key: missing.')).toBe('api_key: missing.');
    expect(sanitizeUpstreamText('Authorization: missing or invalid')).toBe('Authorization: missing or invalid');
  });

  it('leaves Chinese words after a secret name as they are; a CJK letter ends a value as a blank does', () => {
    expect(sanitizeUpstreamText('创建失败：密码 password=必须包含大写字母和数字')).toBe('创建失败：密码 password=必须包含大写字母和数字');
    expect(sanitizeUpstreamText('token: 已过期，请重新登录')).toBe('token: 已过期，请重新登录');
    expect(sanitizeUpstreamText('创建失败：password=hunter2，请重试')).toBe('创建失败：password=[redacted]，请重试');
    expect(sanitizeUpstreamText('密码错误 password：hunter2')).toBe('密码错误 password：[redacted]');
  });

  it('keeps a closing bracket that closes one opened before the name; one opened in the value is the value', () => {
    expect(sanitizeUpstreamText('ENOENT: open /var/lib/agent/tasks.db (password=hunter2)')).toBe('ENOENT: open [path] (password=[redacted])');
    expect(sanitizeUpstreamText('[token=abc(d)] refused')).toBe('[token=[redacted]] refused');
    expect(sanitizeUpstreamText('password=hunter2) refused')).toBe('password=[redacted] refused');
    expect(sanitizeUpstreamText('login failed (password: missing)')).toBe('login failed (password: missing)');
    // An explanation in CJK brackets is the agent's words too.
    for (const reason of ['创建失败：密码 password:（必须包含大写字母和数字）', 'password=【必须包含】', 'password=「至少8位」']) {
      expect(sanitizeUpstreamText(reason)).toBe(reason);
    }
  });

  it('still redacts real secrets next to words and brackets', () => {
    for (const [text, safe] of [
      ['password=hunter2', 'password=[redacted]'],
      ['password: please1', 'password: [redacted]'],
      ['api_key=abc-123 given', 'api_key=[redacted] given'],
      ['password: "must be secret" given', 'password: "[redacted]" given'],
      ['Authorization: Bearer abc.def', 'Authorization: [redacted]'],
      ['密码 password=hunter2必须更换', '密码 password=[redacted]必须更换'],
      // Full-width letters and digits (an input method's), CJK brackets around the value, CJK inside it.
      ['数据库连接失败：password=Ｐａｓｓｗｏｒｄ１２３', '数据库连接失败：password=[redacted]'],
      ['连接失败（password=「S3cr3t!x」）', '连接失败（password=「[redacted]」）'],
      ['password:【hunter2】', 'password:【[redacted]】'],
      ['password=(hunter2)', 'password=([redacted])'],
      // What follows a part redacted by another rule, and CJK words holding a password, are redacted too.
      ['deploy_token=ghp_AAAAAAAAAAAAAAAAAAAAAAAA-prod.Zq9xLmP2', 'deploy_token=[redacted]'],
      ['password=[redacted]hunter2', 'password=[redacted]'],
      ['password=密码abc123', 'password=[redacted]'],
      ['password=「密码abc123」', 'password=「[redacted]」'],
      ['password=Abc密码123xyz', 'password=[redacted]'],
      ['Authorization: 令牌 abcdef123456', 'Authorization: [redacted]'],
      ['Authorization: none abcdef123456', 'Authorization: [redacted]'],
      // A word of prose alone may be the password; one that says a state is not.
      ['password=please', 'password=[redacted]'],
      ['password: Must!', 'password: [redacted]'],
    ]) {
      expect(sanitizeUpstreamText(text!), text).toBe(safe);
    }
    expect(sanitizeUpstreamText('password=Tok3nABCD-and-more', ['Tok3nABCD'])).toBe('password=[redacted]');
  });

  it('does bounded work per secret however many brackets surround it', () => {
    const text = `${'('.repeat(3_990)} password=${')'.repeat(3_990)}`;
    const started = performance.now();
    for (let i = 0; i < 20; i++) sanitizeUpstreamText(text);
    // Work that grew with the square of the brackets took over 600 ms for one such text; bounded, all 20 take a few.
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('keeps a 640-character failure report whole: a user reads every resource it names', () => {
    const items = Array.from({ length: 12 }, (_, i) => `资源 ALIYUN::ECS::Instance${i} 创建失败，原因是库存不足，请更换可用区或实例规格后重试。`);
    const reason = `部署失败：${items.join('')}`;
    expect(reason.length).toBeGreaterThan(600);
    expect(sanitizeUpstreamText(reason)).toBe(reason);
  });

  it('cuts a long text between characters, never between the halves of an emoji', () => {
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    // Both parities of the cut against the bound (MAX_MESSAGE_CHARS), and one past the scanned length.
    for (const reason of [`失败${'😀'.repeat(2_400)}`, `失${'😀'.repeat(2_400)}`, `失败${'😀'.repeat(6_000)}`]) {
      const out = sanitizeUpstreamText(reason);
      expect(out.endsWith('...')).toBe(true);
      expect(out.length).toBeLessThanOrEqual(MAX_MESSAGE_CHARS);
      expect(out).not.toMatch(lone);
    }
    expect(sanitizeUpstreamText('half \ud83d of it')).toBe('half \ufffd of it');
  });
});

describe("withoutUrlCredentials (logs, CLI messages) and sanitizeUpstreamText: a URL's user info", () => {
  const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
  const both = (text: string): string[] => [withoutUrlCredentials(text), sanitizeUpstreamText(text)];

  it('a password that holds a `/` (half of AWS secret keys do) is redacted to the `@` before the host', () => {
    for (const text of [
      `cannot read s3a://AKIAIOSFODNN7EXAMPLE:${SECRET}@my-bucket/out/report.csv: 403`,
      `cannot read s3a://AKIAIOSFODNN7EXAMPLE:/${SECRET}@my-bucket/out/report.csv`,
      'GET https://deploy:pa/ss/word@files.example.com/r.pdf failed',
    ]) {
      for (const safe of both(text)) {
        for (const secret of [SECRET, 'AKIAIOSFODNN7EXAMPLE', 'pa/ss']) expect(safe, text).not.toContain(secret);
        expect(safe, text).toMatch(/:\/\/\[redacted\]@(?:my-bucket\/out\/report\.csv|files\.example\.com\/r\.pdf)/);
      }
    }
    expect(withoutUrlCredentials(`s3a://AKIAIOSFODNN7EXAMPLE:${SECRET}@my-bucket/out/r.csv and s3://b/k`)).toBe(
      's3a://[redacted]@my-bucket/out/r.csv and s3://b/k',
    );
  });

  it('a password that holds a `?` or `#` is redacted too', () => {
    for (const text of ['ftp://deploy:p#ss@files.example.com/r.pdf', 'https://u:p?w0rd@example.com/r.pdf']) {
      for (const safe of both(text)) {
        expect(safe, text).not.toMatch(/p#ss|p\?w0rd/);
      }
    }
  });

  it('leaves URLs without credentials as they are: a port, an `@` in the path or the query, a token@host', () => {
    for (const text of [
      'see https://medium.com/@aliyun/post and https://example.com/a?to=ops@example.com',
      'upstream http://agent:8080/a2a refused',
      'https://example.com:8443/a?b=c',
    ]) {
      expect(withoutUrlCredentials(text)).toBe(text);
    }
    expect(withoutUrlCredentials('https://ghp_token@github.com/o/r')).toBe('https://[redacted]@github.com/o/r');
    expect(withoutUrlCredentials('redis://:pw@redis:6379/0')).toBe('redis://[redacted]@redis:6379/0');
  });

  it("redacts a secret-named query parameter's value, also after a `?` in another's value or name", () => {
    expect(withoutUrlCredentials('https://x.com/a?api_key=abc&b=1')).toBe('https://x.com/a?api_key=[redacted]&b=1');
    expect(withoutUrlCredentials('https://x.com/a?next=/b?access_token=abc&c=1')).toBe('https://x.com/a?next=/b?access_token=[redacted]&c=1');
    expect(withoutUrlCredentials('https://x.com/a?x?token=abc')).toBe('https://x.com/a?x?token=[redacted]');
    expect(withoutUrlCredentials('https://x.com/a?sig=ab?cd&e=1')).toBe('https://x.com/a?sig=[redacted]&e=1');
    expect(withoutUrlCredentials('https://x.com/a?lang=en&page=2')).toBe('https://x.com/a?lang=en&page=2');
    // A scheme glued to the word before it still has its user info redacted.
    expect(withoutUrlCredentials(`${'x'.repeat(40)}https://u:pw@example.com/`)).not.toContain('pw@');
  });

  it('takes work that grows with the text, not its square: a log line of 100 KB is redacted in under a second', () => {
    // Each position used to be read again to the end of a run of scheme characters or of a query's name: seconds each.
    // Linear, it takes a few ms; the bound is far from both, so that a loaded CI host (114 ms seen) cannot fail it.
    const shapes = ['a.', 'a-', 'a+', '?a', 'a?', 'token', '?token'].map((unit) => unit.repeat(Math.ceil(100_000 / unit.length)));
    withoutUrlCredentials('warm up https://u:p@x.com/?token=1');
    for (const text of shapes) {
      const started = performance.now();
      withoutUrlCredentials(text);
      expect(performance.now() - started, text.slice(0, 12)).toBeLessThan(1_000);
    }
  });
});

describe('private network addresses in upstream text', () => {
  it('hides an endpoint on a private network, and a loopback or link-local address, the rest of the reason kept', () => {
    const cases: Array<[string, string]> = [
      ['connect ECONNREFUSED 10.0.3.4:5432', 'connect ECONNREFUSED [internal address]'],
      ['dial tcp 192.168.1.20:6379: i/o timeout', 'dial tcp [internal address]: i/o timeout'],
      ['dial tcp [fd00::1]:443: connection refused', 'dial tcp [internal address]: connection refused'],
      ['GET http://127.0.0.1:8080/api/tasks failed', 'GET http://[internal address]/api/tasks failed'],
      ['metadata service 169.254.169.254 unreachable', 'metadata service [internal address] unreachable'],
      ['connect ECONNREFUSED ::1:8000', 'connect ECONNREFUSED [internal address]'],
      ['route via fe80::1%eth0 down', 'route via [internal address] down'],
      ['[fd12:3456:789a:1::5]:8443: refused', '[internal address]: refused'],
      ['peer ::ffff:127.0.0.1 reset', 'peer [internal address] reset'],
      ['172.31.255.1:80 and 100.64.0.7:3306 timed out', '[internal address] and [internal address] timed out'],
      ['连接数据库10.0.3.4:5432失败', '连接数据库[internal address]失败'],
      ['redis://app:s3cr3t@10.0.0.5:6379/0 refused', 'redis://[redacted]@[internal address]/0 refused'],
      ['host 10.0.3.4:22.', 'host [internal address].'],
      ['listening on 0.0.0.0', 'listening on [internal address]'],
      // A port range is the endpoint's: none of it is left behind.
      ['no route to 10.0.0.5:8000-8090', 'no route to [internal address]'],
      ['[fd00::5]:80-90 unreachable', '[internal address] unreachable'],
    ];
    for (const [text, safe] of cases) expect(sanitizeUpstreamText(text), text).toBe(safe);
  });

  it("leaves public addresses, a private address without a port (the caller's own resource), versions, times and network blocks as they are", () => {
    for (const text of [
      'resolver 8.8.8.8:53 and 47.96.1.2 answered; 172.32.0.1 is public',
      'agent v1.2.3.4 speaks A2A 0.2.5, built 10.0.3 at 07:39:50 on 2026-12-05T07:39:50.019Z',
      'version 1.10.0.3.4 of the module',
      'provider version 0.1.2.3 (alicloud)',
      'VSwitch CIDR 192.168.1.0/24 conflicts with 192.168.0.0/16; IPv6 block fd00::/8',
      'std::vector and Foo::bar',
      'public 2001:db8::1 and [2400:3200::1]:443',
      // The caller's own resources, named without a port: an instance, a vSwitch's gateway.
      'ECS 172.16.3.4 has no public IP; gateway 192.168.1.1 and fd12:3456:789a:1::5 unreachable',
      'peer ::ffff:10.1.2.3 reset',
    ]) {
      expect(sanitizeUpstreamText(text), text).toBe(text);
    }
  });

  it("keeps them for the operator's log", () => {
    const cause = 'connect ECONNREFUSED 10.0.3.4:5432';
    expect(sanitizeUpstreamText(cause, [], { keepAddresses: true })).toBe(cause);
  });
});
