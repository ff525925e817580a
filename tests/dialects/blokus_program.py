"""A Blokus Duo program as the GPCC rules asked for, for the tests: it reads the other
player's moves as 4-character codes on standard input ("----" a pass) and prints its
own, one a line. It also prints lines of its own that are no move, and (with `--typo`)
a malformed code before its first move and an illegal one before its second.

    python -m tests.dialects.blokus_program first|second [--typo] [--quit-after N]
"""

import sys

from matches.rules.blokus_duo_board import legal_moves, new_state, placement, play


def main() -> None:
    me = 0 if sys.argv[1] == "first" else 1
    typo = "--typo" in sys.argv
    quit_after = 0
    if "--quit-after" in sys.argv:
        quit_after = int(sys.argv[sys.argv.index("--quit-after") + 1])
    state, mover, made = new_state(), 0, 0
    print(f"test program: I play {'first' if me == 0 else 'second'}", flush=True)
    while True:
        if mover == me:
            moves = legal_moves(state, me)
            if moves:  # with none, the server passes for it
                if typo and made == 0:
                    print("zz9x", flush=True)  # no move code at all
                if typo and made == 1:
                    print("11a0", flush=True)  # a code, but no legal placement here
                code = moves[len(moves) // 2]
                print(f"thinking about {len(moves)} moves", flush=True)
                print(f"searched {len(moves)} moves", file=sys.stderr, flush=True)
                print(code, flush=True)
                state = play(state, me, placement(code))
                made += 1
                if made == quit_after:
                    return
            mover = 1 - me
            continue
        line = sys.stdin.readline()
        if not line:
            return
        code = line.strip()
        state = play(state, 1 - me, None if code == "----" else placement(code))
        mover = me


if __name__ == "__main__":
    main()
