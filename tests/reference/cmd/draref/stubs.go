package main

func cmdDiff(args []string) int  { return 2 }
func cmdBench(args []string) int { return 2 }
