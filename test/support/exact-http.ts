import { request, type IncomingHttpHeaders } from 'node:http';

export interface ExactAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

/**
 * One request sent with node:http, which (unlike fetch) sends the method and path exactly as written (a dot
 * segment, an odd method) and reads a HEAD answer's headers only.
 */
export function exactRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<ExactAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers, timeout: 5_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
