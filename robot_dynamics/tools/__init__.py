"""Command-line tool, demo and plotting helpers (no ROS needed except in the demo)."""
