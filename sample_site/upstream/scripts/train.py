"""Launch a sample training run (the docs link to this file at the pinned commit)."""

import argparse


def main() -> None:
    parser = argparse.ArgumentParser(description="sample trainer")
    parser.add_argument("--steps", type=int, default=10)
    args = parser.parse_args()
    for step in range(args.steps):
        print(f"step {step}")


if __name__ == "__main__":
    main()
