package main

//go:generate go tool wire gen .
