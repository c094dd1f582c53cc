import { listeningInode } from './process-usage';

// Lines as /proc/net/tcp prints them: local and remote address as hex ip:port, the state, the inode.
const LISTEN_3306 =
  '   0: 0100007F:0CEA 00000000:0000 0A 00000000:00000000 00:00000000 00000000   106        0 7085 1 0000000067768c4b 100 0 0 10 0';
const ESTABLISHED_3306 =
  '   1: 0100007F:0CEA 0100007F:D3A2 01 00000000:00000000 00:00000000 00000000   106        0 9123 1 00000000849a4594 20 4 30 10 -1';
const LISTEN_6379_V6 =
  '   2: 00000000000000000000000001000000:18EB 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000   105        0 6752 1 0000000000000000 100 0 0 10 0';

describe('listeningInode', () => {
  it('gives the inode of a listener on the port, IPv4 or IPv6', () => {
    expect(listeningInode(LISTEN_3306, 3306)).toBe('7085');
    expect(listeningInode(LISTEN_6379_V6, 6379)).toBe('6752');
  });

  it('ignores other ports, connections that are not listening and lines that are not sockets', () => {
    expect(listeningInode(LISTEN_3306, 3307)).toBeUndefined();
    expect(listeningInode(ESTABLISHED_3306, 3306)).toBeUndefined();
    expect(listeningInode('  sl  local_address rem_address   st tx_queue', 3306)).toBeUndefined();
    expect(listeningInode('', 3306)).toBeUndefined();
  });
});
