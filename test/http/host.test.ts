// Which Host headers the server answers (DNS rebinding): the server test sends them over a socket;
// here, the names it listens on, which a test cannot bind to.

import { describe, expect, it } from 'vitest';
import { hostAllowed } from '../../src/http/host.js';

describe('Host check', () => {
  it('answers the name it listens on, with or without a port, and no other', () => {
    expect(hostAllowed('metrics-box:10477', 'metrics-box', [])).toBe(true);
    expect(hostAllowed('Metrics-Box.', 'metrics-box', [])).toBe(true);
    expect(hostAllowed('other-box:10477', 'metrics-box', [])).toBe(false);
    expect(hostAllowed('other-box:10477', '', [])).toBe(false);
  });

  it('answers a request without Host (HTTP/1.0 clients; a browser always sends one)', () => {
    expect(hostAllowed(undefined, '127.0.0.1', [])).toBe(true);
    expect(hostAllowed('', '127.0.0.1', [])).toBe(false);
  });
});
